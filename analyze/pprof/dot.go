// Copyright 2014 Google Inc. All Rights Reserved.
// Copyright 2026 the leakui authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.
//
// This file is ported from github.com/google/pprof as Go 1.26 vendors it
// (cmd/vendor/github.com/google/pprof, version
// v0.0.0-20251114195745-4902fdda35c8), which is what `go tool pprof -dot`
// runs: internal/graph/dotgraph.go (ComposeDot and its builder, lines 56-494;
// the module cache's github.com/google/pprof@v0.0.0-20261105003125-4bf881d7fb0b
// escapes the graph's title and file names too, which the toolchain's does
// not) and internal/report/report.go (newTrimmedGraph, lines 124-185,
// selectOutputUnit, 187-236, newGraph, 238-296, GetDOT and printDOT,
// 1136-1156, reportLabels and genLabel, 1208-1270).
//
// Changed by the leakui authors: without call trees, per-node attributes or a
// legend URL (which -dot does not set), a label's own line breaks written as
// \n (oneLine); the graph is also returned as values (Graph) for drawing
// elsewhere.

package pprof

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/leakui/leakui/analyze"
)

// DefaultGraphNodeCount is go tool pprof's -nodecount for call graphs
// (driver.applyCommandOverrides): 80 nodes.
const DefaultGraphNodeCount = 80

// maxNodelets is graph.maxNodelets: the tags shown per node.
const maxNodelets = 4

// Graph is a profile's call graph as `go tool pprof -dot` draws it: the nodes
// left after -nodefraction and -nodecount, ordered as pprof numbers them
// (N1, N2, … by how much they matter to a drawing), and the calls between
// them after -edgefraction, a dotted (residual) edge standing for calls through
// nodes left out.
type Graph struct {
	SampleType string `json:"sample_type"`
	Unit       string `json:"unit"`
	// Total is what the percentages are of: the profile's total before any
	// filter.
	Total int64 `json:"total"`
	// Legend is the legend's lines: the profile, the filters, what is shown and
	// what was dropped.
	Legend []string    `json:"legend"`
	Nodes  []GraphNode `json:"nodes"`
	Edges  []GraphEdge `json:"edges"`
}

// GraphNode is one function of a call graph, with its values and its tags (the
// label values and numbers pprof draws beside it, at most four of each).
type GraphNode struct {
	// ID is the node's number: N1 is the first node of the DOT text.
	ID   int    `json:"id"`
	Name string `json:"name"`
	// Short is Name shortened as pprof labels the node (ShortName).
	Short string     `json:"short"`
	Flat  int64      `json:"flat"`
	Cum   int64      `json:"cum"`
	Tags  []GraphTag `json:"tags,omitempty"`
}

// GraphTag is a tag of a node: a label value, a number or a range of numbers
// ("1kB..4kB") and its value (the flat value for nodes that call others).
type GraphTag struct {
	Name  string `json:"name"`
	Value int64  `json:"value"`
}

// GraphEdge is the calls from one node to another and their value.
type GraphEdge struct {
	From   int   `json:"from"`
	To     int   `json:"to"`
	Weight int64 `json:"weight"`
	// Residual is set when the calls go through nodes left out of the graph.
	Residual bool `json:"residual,omitempty"`
	// Inline is set when every call was inlined into the caller.
	Inline bool `json:"inline,omitempty"`
}

// dotReport is report.Report with -dot's options.
type dotReport struct {
	textReport
	o     TextOptions
	title string
	prof  *profile.Profile
	units map[string]string
}

// Graph builds the call graph pprof's -dot draws with these options (o.NodeCount
// 0 draws every node; DefaultGraphNodeCount is pprof's default). It is built
// by pprof's own graph code from pprof's parser: the profile's bytes are read
// again (see Open). A filtered profile's graph is that of the samples its
// filters keep, its percentages of the whole profile.
func (p *Profile) Graph(o TextOptions) (*Graph, error) {
	r, err := p.dotReport(o)
	if err != nil {
		return nil, err
	}
	g, labels := r.dot()
	out := &Graph{SampleType: r.sampleType, Unit: r.sampleUnit, Total: r.total, Legend: labels}
	ids := make(map[*gnode]int, len(g.nodes))
	for i, n := range g.nodes {
		ids[n] = i + 1
	}
	for i, n := range g.nodes {
		gn := GraphNode{ID: i + 1, Name: n.info.printableName(), Short: ShortName(n.info.Name), Flat: n.flat, Cum: n.cum}
		for _, t := range n.nodelets() {
			gn.Tags = append(gn.Tags, GraphTag{Name: t.name, Value: t.weight})
		}
		out.Nodes = append(out.Nodes, gn)
	}
	edges := gedgeMap{}
	for _, n := range g.nodes {
		for _, e := range n.out {
			edges[&gnode{}] = e
		}
	}
	for _, e := range edges.sort() {
		out.Edges = append(out.Edges, GraphEdge{From: ids[e.src], To: ids[e.dest], Weight: e.weight, Residual: e.residual, Inline: e.inline})
	}
	return out, nil
}

// WriteDOT prints what `go tool pprof -dot` prints with these options, byte for
// byte (o.NodeCount 0 draws every node; pprof's default is
// DefaultGraphNodeCount).
func (p *Profile) WriteDOT(w io.Writer, o TextOptions) error {
	r, err := p.dotReport(o)
	if err != nil {
		return err
	}
	g, labels := r.dot()
	composeDot(w, g, &dotConfig{title: r.title, labels: labels, formatValue: r.formatValue, total: r.total})
	return nil
}

// dotReport reads the profile with pprof's parser and prepares it as pprof's
// driver does for a report (generateRawReport): the total, then the filters,
// then the aggregation at function granularity.
func (p *Profile) dotReport(o TextOptions) (*dotReport, error) {
	if o.SampleIndex < 0 || o.SampleIndex >= len(p.meta.sampleTypes) {
		return nil, fmt.Errorf("%w: sample index %d", analyze.ErrInvalidParameter, o.SampleIndex)
	}
	if o.Unit == "" {
		o.Unit = DefaultUnit
	}
	if o.NodeCount < 0 {
		o.NodeCount = 0
	}
	b := p.budget.Child(p.budget.Remaining())
	defer b.Release()
	ref, err := p.root().reference(b)
	if err != nil {
		return nil, err
	}
	finishFetch(ref)
	units, _ := ref.NumLabelUnits()
	si := o.SampleIndex
	total := computeTotal([]*profile.Profile{ref}, si)
	applyFiltersAll([]*profile.Profile{ref}, p.filters)
	if err := ref.Aggregate(true, true, false, false, false, false); err != nil {
		return nil, fmt.Errorf("%w: %v", analyze.ErrMalformed, err)
	}
	st := ref.SampleType[si]
	h := headerOf(ref)
	h.activeFilters = filtersLegend(p.filters)
	r := &dotReport{
		textReport: textReport{h: h, o: o, sampleType: st.Type, sampleUnit: st.Unit, outputUnit: o.Unit, total: total},
		o:          o, prof: ref, units: units,
	}
	if len(ref.Mapping) > 0 && ref.Mapping[0].File != "" {
		r.title = filepath.Base(ref.Mapping[0].File)
	}
	return r, nil
}

// dot is report.GetDOT: the trimmed graph and the legend's lines.
func (r *dotReport) dot() (*ggraph, []string) {
	g, origCount, droppedNodes, droppedEdges := r.newTrimmedGraph()
	r.selectGraphOutputUnit(g)
	var shown int64
	for _, n := range g.nodes {
		shown += n.flat
	}
	return g, r.dotLabels(shown, len(g.nodes), origCount, droppedNodes, droppedEdges)
}

// newTrimmedGraph is report.newTrimmedGraph in visual mode (-dot) without a
// call tree: the whole graph, then without the nodes below -nodefraction, then
// the first -nodecount nodes (their tags counted), then without the tags and
// edges below the cutoffs and the redundant residual edges.
func (r *dotReport) newTrimmedGraph() (g *ggraph, origCount, droppedNodes, droppedEdges int) {
	o := r.o
	const visualMode, cumSort = true, false
	// First step: Build complete graph to identify low frequency nodes, based on their cum weight.
	g = r.newGraph(nil)
	totalValue, _ := g.nodes.sum()
	nodeCutoff := abs64(int64(float64(totalValue) * o.NodeFraction))
	edgeCutoff := abs64(int64(float64(totalValue) * o.EdgeFraction))

	// Filter out nodes with cum value below nodeCutoff.
	if nodeCutoff > 0 {
		if nodesKept := g.discardLowFrequencyNodes(nodeCutoff); len(g.nodes) != len(nodesKept) {
			droppedNodes = len(g.nodes) - len(nodesKept)
			g = r.newGraph(nodesKept)
		}
	}
	origCount = len(g.nodes)

	// Second step: Limit the total number of nodes. Apply specialized heuristics to improve
	// visualization when generating dot output.
	g.sortNodes(cumSort, visualMode)
	if nodeCount := o.NodeCount; nodeCount > 0 {
		// Remove low frequency tags and edges as they affect selection.
		g.trimLowFrequencyTags(nodeCutoff)
		g.trimLowFrequencyEdges(edgeCutoff)
		if nodesKept := g.selectTopNodes(nodeCount, visualMode); len(g.nodes) != len(nodesKept) {
			g = r.newGraph(nodesKept)
			g.sortNodes(cumSort, visualMode)
		}
	}

	// Final step: Filter out low frequency tags and edges, and remove redundant edges that clutter
	// the graph.
	g.trimLowFrequencyTags(nodeCutoff)
	droppedEdges = g.trimLowFrequencyEdges(edgeCutoff)
	g.removeRedundantEdges()
	return
}

// newGraph is report.newGraph: the graph of the profile (only the nodes in
// nodes when it is not nil), its numeric labels but "bytes" left out and the
// diff base's label removed, numeric tags formatted in the output unit.
func (r *dotReport) newGraph(nodes gnodeSet) *ggraph {
	prof := r.prof
	for _, s := range prof.Sample {
		numLabels := make(map[string][]int64, len(s.NumLabel))
		numUnits := make(map[string][]string, len(s.NumLabel))
		for k, vs := range s.NumLabel {
			if k == "bytes" {
				unit := r.units[k]
				numValues := make([]int64, len(vs))
				numUnit := make([]string, len(vs))
				for i, v := range vs {
					numValues[i] = v
					numUnit[i] = unit
				}
				numLabels[k] = append(numLabels[k], numValues...)
				numUnits[k] = append(numUnits[k], numUnit...)
			}
		}
		s.NumLabel = numLabels
		s.NumUnit = numUnits
	}
	prof.RemoveLabel("pprof::base")
	si := r.o.SampleIndex
	return newPprofGraph(prof, &gopts{
		sampleValue: func(v []int64) int64 { return v[si] },
		formatTag:   func(v int64, key string) string { return ScaledLabel(v, key, r.outputUnit) },
		keptNodes:   nodes,
	})
}

// selectGraphOutputUnit is report.selectOutputUnit over the graph's nodes.
func (r *dotReport) selectGraphOutputUnit(g *ggraph) {
	if r.outputUnit != "minimum" || len(g.nodes) == 0 {
		return
	}
	var minValue int64
	for _, n := range g.nodes {
		nodeMin := abs64(n.flat)
		if nodeMin == 0 {
			nodeMin = abs64(n.cum)
		}
		if nodeMin > 0 && (minValue == 0 || nodeMin < minValue) {
			minValue = nodeMin
		}
	}
	r.outputUnit = OutputUnit("minimum", r.sampleUnit, minValue, r.total)
}

// dotLabels is report.reportLabels with full headers.
func (r *dotReport) dotLabels(shownTotal int64, nodeCount, origCount, droppedNodes, droppedEdges int) []string {
	label := r.profileLabels()
	label = append(label, legendActiveFilters(r.h.activeFilters)...)
	label = append(label, fmt.Sprintf("Showing nodes accounting for %s, %s of %s total", r.formatValue(shownTotal), strings.TrimSpace(Percentage(shownTotal, r.total)), r.formatValue(r.total)))
	if r.total != 0 {
		if droppedNodes > 0 {
			label = append(label, droppedLabel(droppedNodes, r.formatValue(abs64(int64(float64(r.total)*r.o.NodeFraction)))))
		}
		if droppedEdges > 0 {
			n := "edge"
			if droppedEdges > 1 {
				n = "edges"
			}
			label = append(label, fmt.Sprintf("Dropped %d %s (freq <= %s)", droppedEdges, n, r.formatValue(abs64(int64(float64(r.total)*r.o.EdgeFraction)))))
		}
		if nodeCount > 0 && nodeCount < origCount {
			label = append(label, fmt.Sprintf("Showing top %d nodes out of %d", nodeCount, origCount))
		}
	}
	// Help new users understand the graph.
	return append(label, "\nSee https://git.io/JfYMW for how to read the graph")
}

// dotConfig is graph.DotConfig without a legend URL.
type dotConfig struct {
	title       string
	labels      []string
	formatValue func(int64) string
	total       int64
}

// dotBuilder is dotgraph.go's builder.
type dotBuilder struct {
	io.Writer
	config *dotConfig
}

// composeDot is graph.ComposeDot without per-node attributes.
func composeDot(w io.Writer, g *ggraph, c *dotConfig) {
	builder := &dotBuilder{w, c}

	// Begin constructing DOT by adding a title and legend.
	builder.start()
	defer builder.finish()
	builder.addLegend()

	if len(g.nodes) == 0 {
		return
	}

	// Preprocess graph to get id map and find max flat.
	nodeIDMap := make(map[*gnode]int)
	hasNodelets := make(map[*gnode]bool)

	maxFlat := float64(abs64(g.nodes[0].flat))
	for i, n := range g.nodes {
		nodeIDMap[n] = i + 1
		if float64(abs64(n.flat)) > maxFlat {
			maxFlat = float64(abs64(n.flat))
		}
	}

	edges := gedgeMap{}

	// Add nodes and nodelets to DOT builder.
	for _, n := range g.nodes {
		builder.addNode(n, nodeIDMap[n], maxFlat)
		hasNodelets[n] = builder.addNodelets(n, nodeIDMap[n])

		// Collect all edges. Use a fake node to support multiple incoming edges.
		for _, e := range n.out {
			edges[&gnode{}] = e
		}
	}

	// Add edges to DOT builder. Sort edges by frequency as a hint to the graph layout engine.
	for _, e := range edges.sort() {
		builder.addEdge(e, nodeIDMap[e.src], nodeIDMap[e.dest], hasNodelets[e.src])
	}
}

// start generates a title and initial node in DOT format.
func (b *dotBuilder) start() {
	graphname := "unnamed"
	if b.config.title != "" {
		graphname = b.config.title
	}
	fmt.Fprintln(b, `digraph "`+graphname+`" {`)
	fmt.Fprintln(b, `node [style=filled fillcolor="#f8f8f8"]`)
}

// finish closes the opening curly bracket in the constructed DOT buffer.
func (b *dotBuilder) finish() {
	fmt.Fprintln(b, "}")
}

// addLegend generates a legend in DOT format.
func (b *dotBuilder) addLegend() {
	labels := b.config.labels
	if len(labels) == 0 {
		return
	}
	title := labels[0]
	fmt.Fprintf(b, `subgraph cluster_L { "%s" [shape=box fontsize=16`, escapeForDot(title))
	fmt.Fprintf(b, ` label="%s\l"`, strings.Join(escapeAllForDot(labels), `\l`))
	if b.config.title != "" {
		fmt.Fprintf(b, ` tooltip="%s"`, b.config.title)
	}
	fmt.Fprintf(b, "] }\n")
}

// addNode generates a graph node in DOT format.
func (b *dotBuilder) addNode(node *gnode, nodeID int, maxFlat float64) {
	flat, cum := node.flat, node.cum

	// Populate label for node.
	label := multilinePrintableName(&node.info)

	flatValue := b.config.formatValue(flat)
	if flat != 0 {
		label = label + fmt.Sprintf(`%s (%s)`,
			flatValue,
			strings.TrimSpace(Percentage(flat, b.config.total)))
	} else {
		label = label + "0"
	}
	cumValue := flatValue
	if cum != flat {
		if flat != 0 {
			label = label + `\n`
		} else {
			label = label + " "
		}
		cumValue = b.config.formatValue(cum)
		label = label + fmt.Sprintf(`of %s (%s)`,
			cumValue,
			strings.TrimSpace(Percentage(cum, b.config.total)))
	}

	// Scale font sizes from 8 to 24 based on percentage of flat frequency.
	// Use non linear growth to emphasize the size difference.
	baseFontSize, maxFontGrowth := 8, 16.0
	fontSize := baseFontSize
	if maxFlat != 0 && flat != 0 && float64(abs64(flat)) <= maxFlat {
		fontSize += int(math.Ceil(maxFontGrowth * math.Sqrt(float64(abs64(flat))/maxFlat)))
	}

	// Create DOT attribute for node.
	attr := fmt.Sprintf(`label="%s" id="node%d" fontsize=%d shape=%s tooltip="%s (%s)" color="%s" fillcolor="%s"`,
		label, nodeID, fontSize, "box", escapeForDot(node.info.printableName()), cumValue,
		dotColor(float64(node.cum)/float64(abs64(b.config.total)), false),
		dotColor(float64(node.cum)/float64(abs64(b.config.total)), true))

	fmt.Fprintf(b, "N%d [%s]\n", nodeID, attr)
}

// nodelet is one tag box drawn beside a node: its name and the value written
// on its edge.
type nodelet struct {
	name   string
	weight int64
}

// nodelets lists the tags addNodelets draws beside a node, in its order.
func (n *gnode) nodelets() []nodelet {
	var out []nodelet
	(&dotBuilder{Writer: io.Discard, config: &dotConfig{}}).walkNodelets(n, func(name string, w int64) {
		out = append(out, nodelet{name, w})
	})
	return out
}

// addNodelets generates the DOT boxes for the node tags if they exist.
func (b *dotBuilder) addNodelets(node *gnode, nodeID int) bool {
	var nodelets string
	// Populate two Tag slices, one for LabelTags and one for NumericTags.
	var ts []*gtag
	lnts := make(map[string][]*gtag)
	for _, t := range node.labelTags {
		ts = append(ts, t)
	}
	for l, tm := range node.numericTags {
		for _, t := range tm {
			lnts[l] = append(lnts[l], t)
		}
	}

	// For leaf nodes, print cumulative tags (includes weight from
	// children that have been deleted).
	// For internal nodes, print only flat tags.
	flatTags := len(node.out) > 0

	// Select the top maxNodelets alphanumeric labels by weight.
	sortTags(ts, flatTags)
	if len(ts) > maxNodelets {
		ts = ts[:maxNodelets]
	}
	for i, t := range ts {
		w := t.cum
		if flatTags {
			w = t.flat
		}
		if w == 0 {
			continue
		}
		weight := b.config.formatValue(w)
		nodelets += fmt.Sprintf(`N%d_%d [label = "%s" id="N%d_%d" fontsize=8 shape=box3d tooltip="%s"]`+"\n", nodeID, i, oneLine(t.name), nodeID, i, weight)
		nodelets += fmt.Sprintf(`N%d -> N%d_%d [label=" %s" weight=100 tooltip="%s" labeltooltip="%s"]`+"\n", nodeID, nodeID, i, weight, weight, weight)
		if nts := lnts[t.name]; nts != nil {
			nodelets += b.numericNodelets(nts, maxNodelets, flatTags, fmt.Sprintf(`N%d_%d`, nodeID, i))
		}
	}

	if nts := lnts[""]; nts != nil {
		nodelets += b.numericNodelets(nts, maxNodelets, flatTags, fmt.Sprintf(`N%d`, nodeID))
	}

	fmt.Fprint(b, nodelets)
	return nodelets != ""
}

// walkNodelets calls fn for every nodelet addNodelets draws, in its order:
// the label tags, each followed by its numeric tags, then the numeric tags of
// samples without labels.
func (b *dotBuilder) walkNodelets(node *gnode, fn func(name string, w int64)) {
	var ts []*gtag
	lnts := make(map[string][]*gtag)
	for _, t := range node.labelTags {
		ts = append(ts, t)
	}
	for l, tm := range node.numericTags {
		for _, t := range tm {
			lnts[l] = append(lnts[l], t)
		}
	}
	flatTags := len(node.out) > 0
	sortTags(ts, flatTags)
	if len(ts) > maxNodelets {
		ts = ts[:maxNodelets]
	}
	numeric := func(nts []*gtag) {
		for _, t := range b.collapsedTags(nts, maxNodelets, flatTags) {
			w := t.cum
			if flatTags || t.flat == t.cum {
				w = t.flat
			}
			if w != 0 {
				fn(t.name, w)
			}
		}
	}
	for _, t := range ts {
		w := t.cum
		if flatTags {
			w = t.flat
		}
		if w == 0 {
			continue
		}
		fn(t.name, w)
		if nts := lnts[t.name]; nts != nil {
			numeric(nts)
		}
	}
	if nts := lnts[""]; nts != nil {
		numeric(nts)
	}
}

func (b *dotBuilder) numericNodelets(nts []*gtag, maxNumNodelets int, flatTags bool, source string) string {
	nodelets := ""

	// Collapse numeric labels into maxNumNodelets buckets, of the form:
	// 1MB..2MB, 3MB..5MB, ...
	for j, t := range b.collapsedTags(nts, maxNumNodelets, flatTags) {
		w, attr := t.cum, ` style="dotted"`
		if flatTags || t.flat == t.cum {
			w, attr = t.flat, ""
		}
		if w != 0 {
			weight := b.config.formatValue(w)
			nodelets += fmt.Sprintf(`N%s_%d [label = "%s" id="N%s_%d" fontsize=8 shape=box3d tooltip="%s"]`+"\n", source, j, t.name, source, j, weight)
			nodelets += fmt.Sprintf(`%s -> N%s_%d [label=" %s" weight=100 tooltip="%s" labeltooltip="%s"%s]`+"\n", source, source, j, weight, weight, weight, attr)
		}
	}
	return nodelets
}

// addEdge generates a graph edge in DOT format.
func (b *dotBuilder) addEdge(edge *gedge, from, to int, hasNodelets bool) {
	var inline string
	if edge.inline {
		inline = `\n (inline)`
	}
	w := b.config.formatValue(edge.weight)
	attr := fmt.Sprintf(`label=" %s%s"`, w, inline)
	if b.config.total != 0 {
		// Note: edge.weight > b.config.Total is possible for profile diffs.
		if weight := 1 + int(min(abs64(edge.weight*100/b.config.total), 100)); weight > 1 {
			attr = fmt.Sprintf(`%s weight=%d`, attr, weight)
		}
		if width := 1 + int(min(abs64(edge.weight*5/b.config.total), 5)); width > 1 {
			attr = fmt.Sprintf(`%s penwidth=%d`, attr, width)
		}
		attr = fmt.Sprintf(`%s color="%s"`, attr,
			dotColor(float64(edge.weight)/float64(abs64(b.config.total)), false))
	}
	arrow := "->"
	if edge.residual {
		arrow = "..."
	}
	tooltip := fmt.Sprintf(`"%s %s %s (%s)"`,
		escapeForDot(edge.src.info.printableName()), arrow,
		escapeForDot(edge.dest.info.printableName()), w)
	attr = fmt.Sprintf(`%s tooltip=%s labeltooltip=%s`, attr, tooltip, tooltip)

	if edge.residual {
		attr = attr + ` style="dotted"`
	}

	if hasNodelets {
		// Separate children further if source has tags.
		attr = attr + " minlen=2"
	}

	fmt.Fprintf(b, "N%d -> N%d [%s]\n", from, to, attr)
}

// dotColor returns a color for the given score (between -1.0 and
// 1.0), with -1.0 colored green, 0.0 colored grey, and 1.0 colored
// red. If isBackground is true, then a light (low-saturation)
// color is returned (suitable for use as a background color);
// otherwise, a darker color is returned (suitable for use as a
// foreground color).
func dotColor(score float64, isBackground bool) string {
	// A float between 0.0 and 1.0, indicating the extent to which
	// colors should be shifted away from grey (to make positive and
	// negative values easier to distinguish, and to make more use of
	// the color range.)
	const shift = 0.7

	// Saturation and value (in hsv colorspace) for background colors.
	const bgSaturation = 0.1
	const bgValue = 0.93

	// Saturation and value (in hsv colorspace) for foreground colors.
	const fgSaturation = 1.0
	const fgValue = 0.7

	// Choose saturation and value based on isBackground.
	var saturation float64
	var value float64
	if isBackground {
		saturation = bgSaturation
		value = bgValue
	} else {
		saturation = fgSaturation
		value = fgValue
	}

	// Limit the score values to the range [-1.0, 1.0].
	score = math.Max(-1.0, math.Min(1.0, score))

	// Reduce saturation near score=0 (so it is colored grey, rather than yellow).
	if math.Abs(score) < 0.2 {
		saturation *= math.Abs(score) / 0.2
	}

	// Apply 'shift' to move scores away from 0.0 (grey).
	if score > 0.0 {
		score = math.Pow(score, (1.0 - shift))
	}
	if score < 0.0 {
		score = -math.Pow(-score, (1.0 - shift))
	}

	var r, g, b float64 // red, green, blue
	if score < 0.0 {
		g = value
		r = value * (1 + saturation*score)
	} else {
		r = value
		g = value * (1 - saturation*score)
	}
	b = value * (1 - saturation)
	return fmt.Sprintf("#%02x%02x%02x", uint8(r*255.0), uint8(g*255.0), uint8(b*255.0))
}

// multilinePrintableName is dotgraph.go's multilinePrintableName: the short
// name broken at "::" and ".", then the file's base name, one per line.
func multilinePrintableName(info *textNodeInfo) string {
	infoCopy := *info
	infoCopy.Name = escapeForDot(ShortName(infoCopy.Name))
	infoCopy.Name = strings.ReplaceAll(infoCopy.Name, "::", `\n`)
	// Go type parameters are reported as "[...]" by Go pprof profiles.
	// Keep this ellipsis rather than replacing with newlines below.
	infoCopy.Name = strings.ReplaceAll(infoCopy.Name, "[...]", "[…]")
	infoCopy.Name = strings.ReplaceAll(infoCopy.Name, ".", `\n`)
	if infoCopy.File != "" {
		infoCopy.File = filepath.Base(infoCopy.File)
	}
	return strings.Join(infoCopy.nameComponents(), `\n`) + `\n`
}

// collapsedTags trims and sorts a slice of tags.
func (b *dotBuilder) collapsedTags(ts []*gtag, count int, flatTags bool) []*gtag {
	ts = sortTags(ts, flatTags)
	if len(ts) <= count {
		return ts
	}

	tagGroups := make([][]*gtag, count)
	for i, t := range (ts)[:count] {
		tagGroups[i] = []*gtag{t}
	}
	for _, t := range (ts)[count:] {
		g, d := 0, tagDistance(t, tagGroups[0][0])
		for i := 1; i < count; i++ {
			if nd := tagDistance(t, tagGroups[i][0]); nd < d {
				g, d = i, nd
			}
		}
		tagGroups[g] = append(tagGroups[g], t)
	}

	var nts []*gtag
	for _, g := range tagGroups {
		l, w, c := b.tagGroupLabel(g)
		nts = append(nts, &gtag{name: l, flat: w, cum: c})
	}
	return sortTags(nts, flatTags)
}

func tagDistance(t, u *gtag) float64 {
	v, _ := scaleValue(u.value, u.unit, t.unit)
	if v < float64(t.value) {
		return float64(t.value) - v
	}
	return v - float64(t.value)
}

func (b *dotBuilder) tagGroupLabel(g []*gtag) (label string, flat, cum int64) {
	if len(g) == 1 {
		t := g[0]
		return ScaledLabel(t.value, t.unit, "auto"), t.flat, t.cum
	}
	min := g[0]
	max := g[0]
	f := min.flat
	c := min.cum
	for _, t := range g[1:] {
		if v, _ := scaleValue(t.value, t.unit, min.unit); int64(v) < min.value {
			min = t
		}
		if v, _ := scaleValue(t.value, t.unit, max.unit); int64(v) > max.value {
			max = t
		}
		f += t.flat
		c += t.cum
	}

	// Tags are not scaled with the selected output unit because tags are often
	// much smaller than other values which appear, so the range of tag sizes
	// sometimes would appear to be "0..0" when scaled to the selected output unit.
	return ScaledLabel(min.value, min.unit, "auto") + ".." + ScaledLabel(max.value, max.unit, "auto"), f, c
}

// escapeAllForDot applies escapeForDot to all strings in the given slice.
func escapeAllForDot(in []string) []string {
	var out = make([]string, len(in))
	for i := range in {
		out[i] = escapeForDot(in[i])
	}
	return out
}

// escapeForDot escapes double quotes and backslashes, and replaces Graphviz's
// "center" character (\n) with a left-justified character.
// See https://graphviz.org/docs/attr-types/escString/ for more info.
func escapeForDot(str string) string {
	return strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(str, `\`, `\\`), `"`, `\"`), "\n", `\l`)
}
