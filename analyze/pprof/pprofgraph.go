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
// v0.0.0-20251114195745-4902fdda35c8): internal/graph/graph.go, which is the
// same text in the module cache's
// github.com/google/pprof@v0.0.0-20261105003125-4bf881d7fb0b. The ported parts
// are the graph (Node, Edge, Tag and their maps, lines 69-327), New and
// newGraph (330-392), selectNodesForGraph (394-410), ShortenFunctionName
// (30-47, 465-476), joinLabels (539-553), CreateNodes, findOrInsertLine and
// nodeInfo (570-627), the tag order (629-647), addSample and findOrAddTag
// (649-724), the trimming (752-826), SortNodes and selectTopNodes (828-897),
// RemoveRedundantEdges (899-943), the node orders (945-1134) and the edge order
// (1136-1187).
//
// Changed by the leakui authors: names unexported, without call trees, mean
// divisors, object names or original function names (which -dot does not use),
// NodeInfo shared with the -top report (textNodeInfo), and nodes that print one
// name ordered by their next keys, where pprof's order is a map's
// (orderPrintableName); ShortenFunctionName (ShortName) runs an expression only
// on a name that holds a string the expression needs.

package pprof

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

var (
	// Removes package name and method arguments for Java method names.
	javaRegExp = regexp.MustCompile(`^(?:[a-z]\w*\.)*([A-Z][\w\$]*\.(?:<init>|[a-z][\w\$]*(?:\$\d+)?))(?:(?:\()|$)`)
	// Removes package name and method arguments for Go function names.
	goRegExp = regexp.MustCompile(`^(?:[\w\-\.]+\/)+([^.]+\..+)`)
	// Removes potential module versions in a package path.
	goVerRegExp = regexp.MustCompile(`^(.*?)/v(?:[2-9]|[1-9][0-9]+)([./].*)$`)
	// Strips C++ namespace prefix from a C++ function / method name.
	// NOTE: Make sure to keep the template parameters in the name. Normally,
	// template parameters are stripped from the C++ names but when
	// -symbolize=demangle=templates flag is used, they will not be.
	cppRegExp                = regexp.MustCompile(`^(?:[_a-zA-Z]\w*::)+(_*[A-Z]\w*::~?[_a-zA-Z]\w*(?:<.*>)?)`)
	cppAnonymousPrefixRegExp = regexp.MustCompile(`^\(anonymous namespace\)::`)
)

// ShortName shortens a function's name as pprof shortens it in its call graphs
// and flame graphs (graph.ShortenFunctionName): a Go name loses its package
// path and module version ("github.com/x/y/v2/z.(*T).M" → "z.(*T).M"), a Java
// name its package and arguments, a C++ name its namespaces (kept from the
// capitalised class on) and an anonymous namespace. Other names are returned as
// given.
//
// Each expression runs only on a name holding a string it cannot match
// without ("/v", "/", ".", "::"), which gives the same names at a fraction of
// the cost: a flame graph page shortens thousands of names.
func ShortName(f string) string {
	if strings.HasPrefix(f, "(anonymous namespace)::") {
		f = cppAnonymousPrefixRegExp.ReplaceAllString(f, "")
	}
	if strings.Contains(f, "/v") {
		f = goVerRegExp.ReplaceAllString(f, `${1}${2}`)
	}
	for _, re := range shortNameRegExps {
		if !strings.Contains(f, re.needs) {
			continue
		}
		if matches := re.re.FindStringSubmatch(f); len(matches) >= 2 {
			return strings.Join(matches[1:], "")
		}
	}
	return f
}

// shortNameRegExps are ShortName's expressions in pprof's order, each with a
// string every name it matches holds.
var shortNameRegExps = []struct {
	re    *regexp.Regexp
	needs string
}{{goRegExp, "/"}, {javaRegExp, "."}, {cppRegExp, "::"}}

// gnodes is graph.Nodes, an ordered collection of graph nodes.
type gnodes []*gnode

// gnode is graph.Node: a function of the report (its NodeInfo), its values
// (flat: exclusive; cum: with everything it called), its calls in and out and
// its label tags.
type gnode struct {
	info      textNodeInfo
	flat, cum int64
	in, out   gedgeMap
	// labelTags provide additional information about subsets of a sample.
	labelTags gtagMap
	// numericTags provide additional values for subsets of a sample, keyed by
	// the label tag they go with ("" for none).
	numericTags map[string]gtagMap
}

// addToEdge is Node.AddToEdgeDiv without the divisor.
func (n *gnode) addToEdge(to *gnode, v int64, residual, inline bool) {
	if n.out[to] != to.in[n] {
		panic(fmt.Errorf("asymmetric edges %v %v", *n, *to))
	}
	if e := n.out[to]; e != nil {
		e.weight += v
		if residual {
			e.residual = true
		}
		if !inline {
			e.inline = false
		}
		return
	}
	info := &gedge{src: n, dest: to, weight: v, residual: residual, inline: inline}
	n.out[to] = info
	to.in[n] = info
}

// gnodeMap is graph.NodeMap and gnodeSet graph.NodeSet.
type (
	gnodeMap map[textNodeInfo]*gnode
	gnodeSet map[textNodeInfo]bool
)

// findOrInsertNode is NodeMap.FindOrInsertNode (without Node.Function, which
// only reports at line or address granularity read).
func (nm gnodeMap) findOrInsertNode(info textNodeInfo, kept gnodeSet) *gnode {
	if kept != nil {
		if _, ok := kept[info]; !ok {
			return nil
		}
	}
	if n, ok := nm[info]; ok {
		return n
	}
	n := &gnode{
		info:        info,
		in:          make(gedgeMap),
		out:         make(gedgeMap),
		labelTags:   make(gtagMap),
		numericTags: make(map[string]gtagMap),
	}
	nm[info] = n
	return n
}

// gedgeMap is graph.EdgeMap; gedge is graph.Edge.
type gedgeMap map[*gnode]*gedge

type gedge struct {
	src, dest *gnode
	weight    int64
	// residual edges connect nodes that were connected through a separate
	// node, which has been removed from the report.
	residual bool
	// inline is set when the call was inlined into the caller.
	inline bool
}

// gtag is graph.Tag: a label value (or a number with its unit) and the flat
// and cum values of the samples that carry it.
type gtag struct {
	name      string
	unit      string // "" for labels that are not numbers
	value     int64
	flat, cum int64
}

// gtagMap is graph.TagMap.
type gtagMap map[string]*gtag

// sortTags is graph.SortTags: by |cum| (unless flat), then |flat|, then name.
func sortTags(t []*gtag, flat bool) []*gtag {
	sort.Sort(gtags{t, flat})
	return t
}

type gtags struct {
	t    []*gtag
	flat bool
}

func (t gtags) Len() int      { return len(t.t) }
func (t gtags) Swap(i, j int) { t.t[i], t.t[j] = t.t[j], t.t[i] }
func (t gtags) Less(i, j int) bool {
	if !t.flat {
		if t.t[i].cum != t.t[j].cum {
			return abs64(t.t[i].cum) > abs64(t.t[j].cum)
		}
	}
	if t.t[i].flat != t.t[j].flat {
		return abs64(t.t[i].flat) > abs64(t.t[j].flat)
	}
	return t.t[i].name < t.t[j].name
}

// ggraph is graph.Graph.
type ggraph struct{ nodes gnodes }

// gopts are the graph.Options a -dot report sets.
type gopts struct {
	sampleValue func(s []int64) int64
	formatTag   func(int64, string) string
	keptNodes   gnodeSet
}

// newPprofGraph is graph.New (newGraph) for a graph that is not a tree.
func newPprofGraph(prof *profile.Profile, o *gopts) *ggraph {
	nodes, locationMap := createNodes(prof, o)
	seenNode := make(map[*gnode]bool)
	seenEdge := make(map[[2]*gnode]bool)
	for _, sample := range prof.Sample {
		w := o.sampleValue(sample.Value)
		if w == 0 {
			continue
		}
		clear(seenNode)
		clear(seenEdge)
		var parent *gnode
		// A residual edge goes over one or more nodes that were not kept.
		residual := false

		labels := joinLabels(sample)
		// Group the sample frames, based on a global map.
		for i := len(sample.Location) - 1; i >= 0; i-- {
			l := sample.Location[i]
			locNodes := locationMap[l.ID]
			for ni := len(locNodes) - 1; ni >= 0; ni-- {
				n := locNodes[ni]
				if n == nil {
					residual = true
					continue
				}
				// Add cum weight to all nodes in stack, avoiding double counting.
				if _, ok := seenNode[n]; !ok {
					seenNode[n] = true
					n.addSample(w, labels, sample.NumLabel, sample.NumUnit, o.formatTag, false)
				}
				// Update edge weights for all edges in stack, avoiding double counting.
				if _, ok := seenEdge[[2]*gnode{n, parent}]; !ok && parent != nil && n != parent {
					seenEdge[[2]*gnode{n, parent}] = true
					parent.addToEdge(n, w, residual, ni != len(locNodes)-1)
				}
				parent = n
				residual = false
			}
		}
		if parent != nil && !residual {
			// Add flat weight to leaf node.
			parent.addSample(w, labels, sample.NumLabel, sample.NumUnit, o.formatTag, true)
		}
	}
	return selectNodesForGraph(nodes)
}

// selectNodesForGraph is graph.selectNodesForGraph without -drop_negative.
func selectNodesForGraph(nodes gnodes) *ggraph {
	gNodes := make(gnodes, 0, len(nodes))
	for _, n := range nodes {
		if n == nil {
			continue
		}
		if n.cum == 0 && n.flat == 0 {
			continue
		}
		gNodes = append(gNodes, n)
	}
	return &ggraph{gNodes}
}

// joinLabels is graph.joinLabels: a sample's string labels as "key:value",
// sorted, joined by a DOT line break.
func joinLabels(s *profile.Sample) string {
	if len(s.Label) == 0 {
		return ""
	}
	var labels []string
	for key, vals := range s.Label {
		for _, v := range vals {
			labels = append(labels, key+":"+v)
		}
	}
	sort.Strings(labels)
	return strings.Join(labels, `\n`)
}

// createNodes is graph.CreateNodes: the nodes of every location, one per line
// (a location without lines has one), and the map of each location to them.
func createNodes(prof *profile.Profile, o *gopts) (gnodes, map[uint64]gnodes) {
	locations := make(map[uint64]gnodes, len(prof.Location))
	nm := make(gnodeMap, len(prof.Location))
	for _, l := range prof.Location {
		lines := l.Line
		if len(lines) == 0 {
			lines = []profile.Line{{}} // Create empty line to include location info.
		}
		nodes := make(gnodes, len(lines))
		for ln := range lines {
			nodes[ln] = nm.findOrInsertNode(nodeInfoOf(l, lines[ln]), o.keptNodes)
		}
		locations[l.ID] = nodes
	}
	all := make(gnodes, 0, len(nm))
	for _, n := range nm {
		all = append(all, n)
	}
	return all, locations
}

// sum is Nodes.Sum.
func (ns gnodes) sum() (flat int64, cum int64) {
	for _, n := range ns {
		flat += n.flat
		cum += n.cum
	}
	return
}

// addSample is Node.addSample without divisors.
func (n *gnode) addSample(w int64, labels string, numLabel map[string][]int64, numUnit map[string][]string, format func(int64, string) string, flat bool) {
	if flat {
		n.flat += w
	} else {
		n.cum += w
	}
	// Add string tags
	if labels != "" {
		t := n.labelTags.findOrAddTag(labels, "", 0)
		if flat {
			t.flat += w
		} else {
			t.cum += w
		}
	}
	numericTags := n.numericTags[labels]
	if numericTags == nil {
		numericTags = gtagMap{}
		n.numericTags[labels] = numericTags
	}
	// Add numeric tags
	if format == nil {
		format = func(v int64, key string) string { return strconv.FormatInt(v, 10) }
	}
	for k, nvals := range numLabel {
		units := numUnit[k]
		for i, v := range nvals {
			var t *gtag
			if len(units) > 0 {
				t = numericTags.findOrAddTag(format(v, units[i]), units[i], v)
			} else {
				t = numericTags.findOrAddTag(format(v, k), k, v)
			}
			if flat {
				t.flat += w
			} else {
				t.cum += w
			}
		}
	}
}

// findOrAddTag is TagMap.findOrAddTag.
func (m gtagMap) findOrAddTag(label, unit string, value int64) *gtag {
	l := m[label]
	if l == nil {
		l = &gtag{name: label, unit: unit, value: value}
		m[label] = l
	}
	return l
}

// discardLowFrequencyNodes is Graph.DiscardLowFrequencyNodes: the nodes whose
// |cum| is at least nodeCutoff.
func (g *ggraph) discardLowFrequencyNodes(nodeCutoff int64) gnodeSet {
	return makeNodeSet(g.nodes, nodeCutoff)
}

func makeNodeSet(nodes gnodes, nodeCutoff int64) gnodeSet {
	kept := make(gnodeSet, len(nodes))
	for _, n := range nodes {
		if abs64(n.cum) < nodeCutoff {
			continue
		}
		kept[n.info] = true
	}
	return kept
}

// trimLowFrequencyTags is Graph.TrimLowFrequencyTags.
func (g *ggraph) trimLowFrequencyTags(tagCutoff int64) {
	for _, n := range g.nodes {
		n.labelTags = trimLowFreqTags(n.labelTags, tagCutoff)
		for s, nt := range n.numericTags {
			n.numericTags[s] = trimLowFreqTags(nt, tagCutoff)
		}
	}
}

func trimLowFreqTags(tags gtagMap, minValue int64) gtagMap {
	kept := gtagMap{}
	for s, t := range tags {
		if abs64(t.flat) >= minValue || abs64(t.cum) >= minValue {
			kept[s] = t
		}
	}
	return kept
}

// trimLowFrequencyEdges is Graph.TrimLowFrequencyEdges: it removes the edges
// lighter than edgeCutoff and returns how many.
func (g *ggraph) trimLowFrequencyEdges(edgeCutoff int64) int {
	var droppedEdges int
	for _, n := range g.nodes {
		for src, e := range n.in {
			if abs64(e.weight) < edgeCutoff {
				delete(n.in, src)
				delete(src.out, n)
				droppedEdges++
			}
		}
	}
	return droppedEdges
}

// sortNodes is Graph.SortNodes.
func (g *ggraph) sortNodes(cum bool, visualMode bool) {
	switch {
	case visualMode:
		// Specialized sort to produce a more visually-interesting graph
		g.nodes.sort(entropyOrder)
	case cum:
		g.nodes.sort(cumNameOrder)
	default:
		g.nodes.sort(flatNameOrder)
	}
}

// selectTopNodes is Graph.SelectTopNodes.
func (g *ggraph) selectTopNodes(maxNodes int, visualMode bool) gnodeSet {
	if maxNodes > 0 && visualMode {
		var count int
		// If generating a visual graph, count tags as nodes. Update
		// maxNodes to account for them.
		for i, n := range g.nodes {
			tags := min(countTags(n), maxNodelets)
			if count += tags + 1; count >= maxNodes {
				maxNodes = i + 1
				break
			}
		}
	}
	if maxNodes > len(g.nodes) {
		maxNodes = len(g.nodes)
	}
	return makeNodeSet(g.nodes[:maxNodes], 0)
}

// countTags is graph.countTags: the tags with a flat value.
func countTags(n *gnode) int {
	count := 0
	for _, e := range n.labelTags {
		if e.flat != 0 {
			count++
		}
	}
	for _, t := range n.numericTags {
		for _, e := range t {
			if e.flat != 0 {
				count++
			}
		}
	}
	return count
}

// removeRedundantEdges is Graph.RemoveRedundantEdges: residual edges whose
// destination is reached through another path go.
func (g *ggraph) removeRedundantEdges() {
	// Walk the nodes and outgoing edges in reverse order to prefer
	// removing edges with the lowest weight.
	for i := len(g.nodes); i > 0; i-- {
		n := g.nodes[i-1]
		in := n.in.sort()
		for j := len(in); j > 0; j-- {
			e := in[j-1]
			if !e.residual {
				// Do not remove edges heavier than a non-residual edge, to
				// avoid potential confusion.
				break
			}
			if isRedundantEdge(e) {
				delete(e.src.out, e.dest)
				delete(e.dest.in, e.src)
			}
		}
	}
}

// isRedundantEdge is graph.isRedundantEdge.
func isRedundantEdge(e *gedge) bool {
	src, n := e.src, e.dest
	seen := map[*gnode]bool{n: true}
	queue := gnodes{n}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, ie := range n.in {
			if e == ie || seen[ie.src] {
				continue
			}
			if ie.src == src {
				return true
			}
			seen[ie.src] = true
			queue = append(queue, ie.src)
		}
	}
	return false
}

// gnodeOrder is graph.NodeOrder (the orders reports use).
type gnodeOrder int

const (
	flatNameOrder gnodeOrder = iota
	cumNameOrder
	entropyOrder
)

type gnodeSorter struct {
	rs   gnodes
	less func(l, r *gnode) bool
}

func (s gnodeSorter) Len() int           { return len(s.rs) }
func (s gnodeSorter) Swap(i, j int)      { s.rs[i], s.rs[j] = s.rs[j], s.rs[i] }
func (s gnodeSorter) Less(i, j int) bool { return s.less(s.rs[i], s.rs[j]) }

// sort is Nodes.Sort.
func (ns gnodes) sort(o gnodeOrder) {
	var s gnodeSorter
	switch o {
	case flatNameOrder:
		s = gnodeSorter{ns,
			func(l, r *gnode) bool {
				if iv, jv := abs64(l.flat), abs64(r.flat); iv != jv {
					return iv > jv
				}
				if c := l.info.orderPrintableName(r.info); c != 0 {
					return c < 0
				}
				if iv, jv := abs64(l.cum), abs64(r.cum); iv != jv {
					return iv > jv
				}
				return compareGNodes(l, r)
			},
		}
	case cumNameOrder, entropyOrder:
		// Hold scoring for score-based ordering
		score := make(map[*gnode]int64, len(ns))
		for _, n := range ns {
			if o == cumNameOrder {
				score[n] = n.cum
			} else {
				score[n] = entropyScore(n)
			}
		}
		s = gnodeSorter{ns, func(l, r *gnode) bool {
			if iv, jv := abs64(score[l]), abs64(score[r]); iv != jv {
				return iv > jv
			}
			if c := l.info.orderPrintableName(r.info); c != 0 {
				return c < 0
			}
			if iv, jv := abs64(l.flat), abs64(r.flat); iv != jv {
				return iv > jv
			}
			return compareGNodes(l, r)
		}}
	}
	sort.Sort(s)
}

// compareGNodes is graph.compareNodes: a deterministic order of two nodes.
func compareGNodes(l, r *gnode) bool {
	return fmt.Sprint(l.info) < fmt.Sprint(r.info)
}

// entropyScore is graph.entropyScore: how important a node is to a drawing,
// from its flat and cum and the spread of its edges (a node that merely passes
// its callers' weight on to one callee scores low).
func entropyScore(n *gnode) int64 {
	score := float64(0)
	if len(n.in) == 0 {
		score++ // Favor entry nodes
	} else {
		score += edgeEntropyScore(n.in, 0)
	}
	if len(n.out) == 0 {
		score++ // Favor leaf nodes
	} else {
		score += edgeEntropyScore(n.out, n.flat)
	}
	return int64(score*float64(n.cum)) + n.flat
}

// edgeEntropyScore is graph.edgeEntropyScore: the entropy of a set of edges.
func edgeEntropyScore(edges gedgeMap, self int64) float64 {
	score := float64(0)
	total := self
	for _, e := range edges {
		if e.weight > 0 {
			total += abs64(e.weight)
		}
	}
	if total != 0 {
		for _, e := range edges {
			frac := float64(abs64(e.weight)) / float64(total)
			score += -frac * math.Log2(frac)
		}
		if self > 0 {
			frac := float64(abs64(self)) / float64(total)
			score += -frac * math.Log2(frac)
		}
	}
	return score
}

// sort is EdgeMap.Sort: by |weight|, then by the names of the source and the
// destination.
func (e gedgeMap) sort() []*gedge {
	el := make(gedgeList, 0, len(e))
	for _, w := range e {
		el = append(el, w)
	}
	sort.Sort(el)
	return el
}

type gedgeList []*gedge

func (el gedgeList) Len() int { return len(el) }

func (el gedgeList) Less(i, j int) bool {
	if el[i].weight != el[j].weight {
		return abs64(el[i].weight) > abs64(el[j].weight)
	}
	from1 := el[i].src.info.printableName()
	from2 := el[j].src.info.printableName()
	if from1 != from2 {
		return from1 < from2
	}
	to1 := el[i].dest.info.printableName()
	to2 := el[j].dest.info.printableName()
	return to1 < to2
}

func (el gedgeList) Swap(i, j int) { el[i], el[j] = el[j], el[i] }
