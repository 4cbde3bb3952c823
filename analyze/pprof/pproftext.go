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
// v0.0.0-20251114195745-4902fdda35c8): internal/driver/fetch.go,
// internal/driver/driver.go, internal/driver/config.go,
// internal/report/report.go, internal/graph/graph.go and profile/merge.go.
//
// Changed by the leakui authors: translated to leakui's profiles and call
// graphs, without symbolization, tags, mean divisors or output formats other
// than -top; rows that print one name ordered by their next keys, where pprof's
// order is a map's (see orderPrintableName).

package pprof

import (
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/google/pprof/profile"

	"github.com/leakui/leakui/analyze"
)

// This file prints `go tool pprof -top` byte for byte. It ports the pieces of
// go tool pprof that make that report, from the copy of github.com/google/pprof the
// Go toolchain vendors ($GOROOT/src/cmd/vendor/github.com/google/pprof/internal/…,
// which cannot be imported): driver/fetch.go (fetchProfiles: the diff base, then
// RemoveUninteresting and unsourceMappings), driver/driver.go (generateRawReport,
// applyCommandOverrides, aggregate), report/report.go (newTrimmedGraph,
// selectOutputUnit, TextItems, printText, ProfileLabels, reportLabels,
// computeTotal) and graph/graph.go (newGraph, CreateNodes, nodeInfo, NodeInfo's
// PrintableName, the flat sort, node and edge trimming), with profile/merge.go's
// combineHeaders for a diff's header. The public github.com/google/pprof/profile
// package parses, prunes and aggregates, as in pprof.

// TextOptions are the options of go tool pprof that shape its reports: -top
// (WriteTop, WriteDiff), -tags (Labels, WriteLabels) and -dot (Graph,
// WriteDOT). The filters are not among them: a filtered profile is a Profile of
// its own (Filter), whose reports say which filters made it.
type TextOptions struct {
	// SampleIndex is the sample type shown (an index from SampleIndex).
	SampleIndex int
	// NodeCount is -nodecount: show at most this many rows (or nodes); 0 shows
	// all, what -top does when -nodecount is not given (a call graph's default
	// is DefaultGraphNodeCount).
	NodeCount int
	// NodeFraction is -nodefraction: rows whose |cum| is below this fraction of the
	// shown total are dropped (pprof's default 0.005).
	NodeFraction float64
	// EdgeFraction is -edgefraction: call edges below this fraction are dropped
	// (default 0.001); in -top it decides which "(inline)" marks remain.
	EdgeFraction float64
	// Unit is -unit: "minimum" (the default) picks one as pprof does.
	Unit string
}

// Default values of go tool pprof's options (driver/config.go defaultConfig).
const (
	DefaultNodeFraction = 0.005
	DefaultEdgeFraction = 0.001
	DefaultUnit         = "minimum"
)

// referenceProfile parses data as driver/fetch.go grabProfile does, with the
// reference parser (github.com/google/pprof/profile): what reports read where
// they must equal pprof's and leakui's decoder cannot name the frames as pprof
// does. The parse is charged to b (referenceExpansion bytes per byte).
func referenceProfile(data []byte, b *analyze.Budget) (p *profile.Profile, err error) {
	if err := b.Charge(int64(len(data)) * referenceExpansion); err != nil {
		return nil, err
	}
	defer func() {
		// Third-party parser: a hostile file must not crash the caller.
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("%w: profile parser failed: %v", analyze.ErrMalformed, r)
		}
	}()
	p, err = profile.ParseData(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", analyze.ErrMalformed, err)
	}
	if err := p.CheckValid(); err != nil {
		return nil, fmt.Errorf("%w: %v", analyze.ErrMalformed, err)
	}
	return p, nil
}

// reference parses the profile's bytes with the reference parser, charged to b.
func (p *Profile) reference(b *analyze.Budget) (*profile.Profile, error) {
	data, err := p.rawBytes(b)
	if err != nil {
		return nil, err
	}
	return referenceProfile(data, b)
}

// writeReferenceTop prints what `go tool pprof -top` prints for the profile with
// these options (and -symbolize=none: leakui does not symbolize), from the
// reference parser.
func writeReferenceTop(w io.Writer, p *profile.Profile, filters []Filter, o TextOptions) error {
	finishFetch(p)
	return writeText(w, p, []*profile.Profile{p}, filters, o)
}

// writeReferenceDiff prints what `go tool pprof -top -diff_base=BASE TARGET`
// prints, from the reference parser. The profiles must be of one type (see
// Comparable).
func writeReferenceDiff(w io.Writer, pbase, p *profile.Profile, filters []Filter, o TextOptions) error {
	// driver/fetch.go fetchProfiles: mark the base and negate it. (measurement.
	// ScaleProfiles, which pprof runs first, changes nothing for two profiles of
	// the same sample types and units, the only ones leakui compares.)
	pbase.SetLabel("pprof::base", []string{"true"})
	pbase.Scale(-1)
	if err := profile.CompatibilizeSampleTypes([]*profile.Profile{p, pbase}); err != nil {
		return fmt.Errorf("%w: %v", analyze.ErrMismatch, err)
	}
	if !sameValueType(p.PeriodType, pbase.PeriodType) {
		return fmt.Errorf("%w: the profiles' period types differ", analyze.ErrMismatch)
	}
	// pprof then merges the two (profile.Merge) and prunes the merged profile with
	// the target's drop_frames. Merging adds up samples with the same stack and
	// labels, which changes no sum the report makes (the base's samples keep
	// their label, so none merges with the target's), so the report reads both
	// profiles as they are, and only the header is merged: half the time and
	// memory of the merge. (One difference remains possible: Merge identifies
	// mappings by build ID, so an unsymbolized frame of the base whose binary has
	// the target's build ID under another path is named after the target's path.)
	pbase.DropFrames, pbase.KeepFrames = p.DropFrames, p.KeepFrames
	finishFetch(p)
	finishFetch(pbase)
	return writeText(w, mergedHeader(p, pbase), []*profile.Profile{p, pbase}, filters, o)
}

// sameValueType reports whether two optional value types are equal.
func sameValueType(a, b *profile.ValueType) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Type == b.Type && a.Unit == b.Unit
}

// mergedHeader is what profile.Merge's combineHeaders makes of the profiles'
// headers, with the first mapping Merge keeps (the first profile's first one, if
// any): all the report's labels read.
func mergedHeader(srcs ...*profile.Profile) *profile.Profile {
	var timeNanos, durationNanos int64
	var comments []string
	seen := map[string]bool{}
	var docURL string
	var mapping *profile.Mapping
	for _, s := range srcs {
		if timeNanos == 0 || s.TimeNanos < timeNanos {
			timeNanos = s.TimeNanos
		}
		durationNanos += s.DurationNanos
		for _, c := range s.Comments {
			if !seen[c] {
				comments = append(comments, c)
				seen[c] = true
			}
		}
		if docURL == "" {
			docURL = s.DocURL
		}
		if mapping == nil && len(s.Mapping) > 0 {
			mapping = s.Mapping[0]
		}
	}
	h := &profile.Profile{TimeNanos: timeNanos, DurationNanos: durationNanos, Comments: comments, DocURL: docURL,
		SampleType: srcs[0].SampleType}
	if mapping != nil {
		h.Mapping = []*profile.Mapping{mapping}
	}
	return h
}

// finishFetch is the end of driver/fetch.go fetchProfiles (after symbolization,
// which leakui does not do).
func finishFetch(p *profile.Profile) {
	p.RemoveUninteresting()
	// unsourceMappings
	for _, m := range p.Mapping {
		if m.BuildID == "" && filepath.VolumeName(m.File) == "" {
			if u, err := url.Parse(m.File); err == nil && u.IsAbs() {
				m.File = ""
			}
		}
	}
}

// textHeader is what the labels of a report read of a profile (its header,
// or a diff's merged one: see mergedHeader).
type textHeader struct {
	// mainFile and mainBuildID are the first mapping's, after unsourceMappings.
	mainFile, mainBuildID    string
	hasMapping               bool
	comments                 []string
	docURL                   string
	timeNanos, durationNanos int64
	sampleTypes              []valueType
	// activeFilters are the filters' legend lines (Filter.legend).
	activeFilters []string
}

// headerOf is the textHeader of a profile parsed by the reference parser.
func headerOf(p *profile.Profile) textHeader {
	h := textHeader{comments: p.Comments, docURL: p.DocURL, timeNanos: p.TimeNanos, durationNanos: p.DurationNanos}
	if len(p.Mapping) > 0 {
		h.hasMapping, h.mainFile, h.mainBuildID = true, p.Mapping[0].File, p.Mapping[0].BuildID
	}
	for _, st := range p.SampleType {
		h.sampleTypes = append(h.sampleTypes, valueType{st.Type, st.Unit})
	}
	return h
}

// textReport is report.Report for the text format.
type textReport struct {
	h          textHeader // the header the labels read
	o          TextOptions
	sampleType string
	sampleUnit string
	outputUnit string
	total      int64
	in         *textGraphInput
}

func (r *textReport) formatValue(v int64) string {
	return ScaledLabel(v, r.sampleUnit, r.outputUnit)
}

// writeText is driver.generateRawReport + report.printText for -top over the
// samples of srcs (one profile, or a diff's target and negated base), with the
// header labels of hdr: the total of the samples (report.New), then the
// filters (applyFocus), then the aggregation.
func writeText(w io.Writer, hdr *profile.Profile, srcs []*profile.Profile, filters []Filter, o TextOptions) error {
	if o.SampleIndex < 0 || o.SampleIndex >= len(hdr.SampleType) {
		return fmt.Errorf("%w: sample index %d", analyze.ErrInvalidParameter, o.SampleIndex)
	}
	total := computeTotal(srcs, o.SampleIndex)
	applyFiltersAll(srcs, filters)
	for _, p := range srcs {
		// driver.aggregate at the default "functions" granularity, with inlined frames.
		if err := p.Aggregate(true, true, false, false, false, false); err != nil {
			return fmt.Errorf("%w: %v", analyze.ErrMalformed, err)
		}
	}
	h := headerOf(hdr)
	h.activeFilters = filtersLegend(filters)
	return writeTextReport(w, h, newTextGraphInput(srcs, o.SampleIndex), func() int64 { return total }, o)
}

// applyFiltersAll applies filters to the profiles that make one report (a
// diff's target and base, which pprof filters merged), with the numeric label
// units of all of them before any filter, as pprof's driver identifies them on
// the merged profile.
func applyFiltersAll(srcs []*profile.Profile, filters []Filter) FilterMatches {
	if len(filters) == 0 {
		return FilterMatches{Focus: true}
	}
	units := map[string]string{}
	for _, p := range srcs {
		u, _ := p.NumLabelUnits()
		for k, v := range u {
			if _, ok := units[k]; !ok {
				units[k] = v
			}
		}
	}
	var m FilterMatches
	for i, p := range srcs {
		for _, f := range filters {
			fm := f.applyReference(p, units)
			if i == 0 {
				m = fm
			} else {
				m = m.or(fm)
			}
		}
	}
	return m
}

// filtersLegend is the legend of filters applied in order.
func filtersLegend(filters []Filter) []string {
	var out []string
	for _, f := range filters {
		out = append(out, f.legend()...)
	}
	return out
}

// writeTextReport prints the -top report of the graph input in with header h.
// total is called once the graph has been built: a streamed profile's total is
// known after its first walk over the samples.
func writeTextReport(w io.Writer, h textHeader, in *textGraphInput, total func() int64, o TextOptions) error {
	if o.SampleIndex < 0 || o.SampleIndex >= len(h.sampleTypes) {
		return fmt.Errorf("%w: sample index %d", analyze.ErrInvalidParameter, o.SampleIndex)
	}
	if o.Unit == "" {
		o.Unit = DefaultUnit
	}
	if o.NodeCount < 0 {
		o.NodeCount = 0 // applyCommandOverrides: -1 means all for text reports
	}
	st := h.sampleTypes[o.SampleIndex]
	rpt := &textReport{h: h, o: o, sampleType: st.typ, sampleUnit: st.unit, outputUnit: o.Unit, in: in}

	// report.TextItems
	nodes, origCount, droppedNodes, err := rpt.trimmedGraph()
	if err != nil {
		return err
	}
	rpt.total = total()
	rpt.selectOutputUnit(nodes)
	labels := rpt.labels(graphFlatTotal(nodes), len(nodes), origCount, droppedNodes)

	var b strings.Builder
	for _, l := range labels {
		b.WriteString(oneLine(l))
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%10s %5s%% %5s%% %10s %5s%%\n", "flat", "flat", "sum", "cum", "cum")
	var flatSum int64
	for _, n := range nodes {
		inl := inlineMark(n)
		if inl != "" {
			inl = " " + inl
		}
		flatSum += n.flat
		fmt.Fprintf(&b, "%10s %s %s %10s %s  %s%s\n",
			rpt.formatValue(n.flat), Percentage(n.flat, rpt.total),
			Percentage(flatSum, rpt.total),
			rpt.formatValue(n.cum), Percentage(n.cum, rpt.total),
			oneLine(n.info.printableName()), inl)
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// oneLine is s with its line breaks written as \n and \r: a header field or a
// function name comes from the profile, and a line feed of its own would
// start a line that looks like pprof's (go tool pprof prints it raw). Text
// without line breaks, which every profile a Go or JVM program writes has, is
// unchanged, byte for byte.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r") {
		return s
	}
	return strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(s)
}

// inlineMark is report.TextItems' InlineLabel: "(inline)" when every call to the
// node that -edgefraction keeps was inlined, "(partial-inline)" when some were.
func inlineMark(n *textNode) string {
	var inline, noinline bool
	for _, e := range n.in {
		if e.inline {
			inline = true
		} else {
			noinline = true
		}
	}
	switch {
	case inline && noinline:
		return "(partial-inline)"
	case inline:
		return "(inline)"
	}
	return ""
}

// InlineMarks returns, by function name, the "(inline)" or "(partial-inline)"
// mark `go tool pprof -top` prints beside the rows of this profile's top table
// with -nodefraction and -edgefraction as given (functions without one are left
// out). It runs pprof's graph over the profile's call graph, whose function nodes
// are pprof's.
func (p *Profile) InlineMarks(sampleIndex int, nodeFraction, edgeFraction float64) (map[string]string, error) {
	if sampleIndex < 0 || sampleIndex >= len(p.meta.sampleTypes) {
		return nil, fmt.Errorf("%w: sample index %d", analyze.ErrInvalidParameter, sampleIndex)
	}
	in := &textGraphInput{}
	p.addTo(in, sampleIndex, false, map[string]int32{})
	r := &textReport{o: TextOptions{SampleIndex: sampleIndex, NodeFraction: nodeFraction, EdgeFraction: edgeFraction}, in: in}
	nodes, _, _, err := r.trimmedGraph()
	if err != nil {
		return nil, err
	}
	marks := make(map[string]string)
	for _, n := range nodes {
		if m := inlineMark(n); m != "" {
			marks[n.info.Name] = m
		}
	}
	return marks, nil
}

// computeTotal is report.computeTotal without a mean divisor: the sum of the
// absolute values, of the diff base's samples only when there are any.
func computeTotal(srcs []*profile.Profile, si int) int64 {
	var total, diffTotal int64
	for _, p := range srcs {
		for _, s := range p.Sample {
			v := s.Value[si]
			if v < 0 {
				v = -v
			}
			total += v
			if s.DiffBaseSample() {
				diffTotal += v
			}
		}
	}
	if diffTotal > 0 {
		return diffTotal
	}
	return total
}

// trimmedGraph is report.newTrimmedGraph for a text report (no call tree, flat
// order): the graph without nodes below -nodefraction, then the first -nodecount
// nodes, with edges below -edgefraction removed.
func (r *textReport) trimmedGraph() (nodes []*textNode, origCount, droppedNodes int, err error) {
	if nodes, err = r.graph(nil); err != nil {
		return nil, 0, 0, err
	}
	totalValue := graphFlatTotal(nodes)
	nodeCutoff := abs64(int64(float64(totalValue) * r.o.NodeFraction))
	edgeCutoff := abs64(int64(float64(totalValue) * r.o.EdgeFraction))

	if nodeCutoff > 0 {
		kept := make([]bool, len(r.in.infos))
		nKept := 0
		for _, n := range nodes {
			if abs64(n.cum) >= nodeCutoff {
				kept[n.id] = true
				nKept++
			}
		}
		if nKept != len(nodes) {
			droppedNodes = len(nodes) - nKept
			if nodes, err = r.keptGraph(nodes, kept); err != nil {
				return nil, 0, 0, err
			}
		}
	}
	origCount = len(nodes)

	sortFlatName(nodes)
	if nc := r.o.NodeCount; nc > 0 {
		trimLowFrequencyEdges(nodes, edgeCutoff)
		if nc < len(nodes) {
			kept := make([]bool, len(r.in.infos))
			for _, n := range nodes[:nc] {
				kept[n.id] = true
			}
			if nodes, err = r.keptGraph(nodes, kept); err != nil {
				return nil, 0, 0, err
			}
			sortFlatName(nodes)
		}
	}
	trimLowFrequencyEdges(nodes, edgeCutoff)
	return nodes, origCount, droppedNodes, nil
}

// keptGraph is graph(kept), from nodes (the graph of more nodes) when that
// gives the same report without another walk over the samples: dropping
// nodes changes no other node's flat or cum (flat goes to the leaf's node, or
// is lost when that node is dropped; cum counts the samples a node is in), only
// which node calls which, and the calls decide nothing in a -top report but the
// "(inline)" marks. A node never inlined into another frame of its location
// has no inline call, before or after, so it has no mark either way; only when
// a kept node was inlined somewhere is the graph built again.
func (r *textReport) keptGraph(nodes []*textNode, kept []bool) ([]*textNode, error) {
	out := make([]*textNode, 0, len(nodes))
	for _, n := range nodes {
		if !kept[n.id] {
			continue
		}
		if int(n.id) < len(r.in.inlined) && r.in.inlined[n.id] {
			return r.graph(kept)
		}
		out = append(out, n)
	}
	return out, nil
}

// selectOutputUnit is report.selectOutputUnit.
func (r *textReport) selectOutputUnit(nodes []*textNode) {
	if r.outputUnit != "minimum" || len(nodes) == 0 {
		return
	}
	var minValue int64
	for _, n := range nodes {
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

// labels is report.reportLabels (with report.ProfileLabels) for -top.
func (r *textReport) labels(shownTotal int64, nodeCount, origCount, droppedNodes int) []string {
	label := r.profileLabels()
	label = append(label, legendActiveFilters(r.h.activeFilters)...)
	label = append(label, fmt.Sprintf("Showing nodes accounting for %s, %s of %s total",
		r.formatValue(shownTotal), strings.TrimSpace(Percentage(shownTotal, r.total)), r.formatValue(r.total)))
	if r.total != 0 {
		if droppedNodes > 0 {
			label = append(label, droppedLabel(droppedNodes, r.formatValue(abs64(int64(float64(r.total)*r.o.NodeFraction)))))
		}
		if nodeCount > 0 && nodeCount < origCount {
			label = append(label, fmt.Sprintf("Showing top %d nodes out of %d", nodeCount, origCount))
		}
	}
	return label
}

// legendActiveFilters is report.legendActiveFilters: "Active filters:", then
// each filter indented, cut at 80 bytes; nothing without filters.
func legendActiveFilters(activeFilters []string) []string {
	if len(activeFilters) == 0 {
		return nil
	}
	out := make([]string, len(activeFilters)+1)
	out[0] = "Active filters:"
	for i, s := range activeFilters {
		if len(s) > 80 {
			s = s[:80] + "…"
		}
		out[i+1] = "   " + s
	}
	return out
}

// droppedLabel is report.genLabel for nodes: "Dropped 57 nodes (cum <= 12.50MB)".
func droppedLabel(d int, cutoff string) string {
	n := "node"
	if d > 1 {
		n = "nodes"
	}
	return fmt.Sprintf("Dropped %d %s (cum <= %s)", d, n, cutoff)
}

// profileLabels is report.ProfileLabels.
func (r *textReport) profileLabels() []string {
	label := []string{}
	h := r.h
	if h.hasMapping {
		if h.mainFile != "" {
			label = append(label, "File: "+filepath.Base(h.mainFile))
		}
		if h.mainBuildID != "" {
			label = append(label, "Build ID: "+h.mainBuildID)
		}
	}
	for _, c := range h.comments {
		if !strings.HasPrefix(c, "#") {
			label = append(label, c)
		}
	}
	if r.sampleType != "" {
		label = append(label, "Type: "+r.sampleType)
	}
	if u := h.docURL; u != "" {
		label = append(label, "Doc: "+u)
	}
	if h.timeNanos != 0 {
		const layout = "2006-01-02 15:04:05 MST"
		label = append(label, "Time: "+time.Unix(0, h.timeNanos).Format(layout))
	}
	if h.durationNanos != 0 {
		duration := ScaledLabel(h.durationNanos, "nanoseconds", "auto")
		totalNanos, totalUnit := scaleValue(r.total, r.sampleUnit, "nanoseconds")
		var ratio string
		if totalUnit == "ns" && totalNanos != 0 {
			ratio = "(" + Percentage(int64(totalNanos), h.durationNanos) + ")"
		}
		label = append(label, fmt.Sprintf("Duration: %s, Total samples = %s %s", duration, r.formatValue(r.total), ratio))
	}
	return label
}

// textNodeInfo is graph.NodeInfo, field for field and in the same order:
// compareNodes orders ties by fmt.Sprint of it.
type textNodeInfo struct {
	Name              string
	OrigName          string
	Address           uint64
	File              string
	StartLine, Lineno int
	Columnno          int
	Objfile           string
}

// printableName is NodeInfo.PrintableName.
func (i *textNodeInfo) printableName() string {
	return strings.Join(i.nameComponents(), " ")
}

// nameComponents is NodeInfo.NameComponents: the parts of the printable name.
func (i *textNodeInfo) nameComponents() []string {
	var name []string
	if i.Address != 0 {
		name = append(name, fmt.Sprintf("%016x", i.Address))
	}
	if fun := i.Name; fun != "" {
		name = append(name, fun)
	}
	switch {
	case i.Lineno != 0:
		s := fmt.Sprintf("%s:%d", i.File, i.Lineno)
		if i.Columnno != 0 {
			s += fmt.Sprintf(":%d", i.Columnno)
		}
		name = append(name, s)
	case i.File != "":
		name = append(name, i.File)
	case i.Name != "":
	case i.Objfile != "":
		name = append(name, "["+filepath.Base(i.Objfile)+"]")
	default:
		name = append(name, "<unknown>")
	}
	return name
}

// orderPrintableName is NodeInfo.comparePrintableName (graph.go, lines 199-213):
// it orders two nodes by their printable names, but says 0 for two nodes that print the same name
// (the same library under two paths, unnamed functions of one binary), so that
// the sorts go on to their next key. pprof's comparePrintableName calls them
// neither equal nor less, so its sorts leave them in the order they came in,
// which is a map's: pprof prints such rows in a different order from one run to
// the next. leakui orders them by the next keys, |cum| then the node info.
func (i *textNodeInfo) orderPrintableName(right textNodeInfo) int {
	if right == *i {
		return 0
	}
	if i.Address != 0 && right.Address != 0 && i.Address != right.Address {
		if i.Address < right.Address {
			return -1
		}
		return 1
	}
	return strings.Compare(i.printableName(), right.printableName())
}

// textNode is graph.Node without tags and mean divisors; in holds its incoming
// edges (graph.Node.In), which decide its "(inline)" mark.
type textNode struct {
	id        int32
	info      textNodeInfo
	flat, cum int64
	in        []*textEdge
}

// textEdge is graph.Edge: the calls from one node to another, their weight (each
// sample counted once) and whether every one of them was inlined.
type textEdge struct {
	weight int64
	inline bool
	stamp  int32 // the sample (number + 1) that last added to the weight
}

// textGraphInput is what graph.New reads of a profile, indexed once for the
// several graphs a report builds: every distinct node (graph.NodeInfo), the nodes
// of every location (CreateNodes), and the samples of one sample type of one or
// two call graphs (a diff's target and its base, read as pprof reads their merge).
type textGraphInput struct {
	infos    []textNodeInfo
	locNodes [][]int32 // location index over the parts → node ids, innermost first
	parts    []textPart
	// inlined is set for the nodes inlined into another frame of some
	// location (not its outermost frame): the only ones with "(inline)" marks.
	inlined []bool
}

// addLocation adds a location's nodes, innermost first.
func (in *textGraphInput) addLocation(ns []int32) {
	for len(in.inlined) < len(in.infos) {
		in.inlined = append(in.inlined, false)
	}
	for _, id := range ns[:max(len(ns)-1, 0)] {
		in.inlined[id] = true
	}
	in.locNodes = append(in.locNodes, ns)
}

// textPart is the samples of one call graph: its sample type si, negated for a
// diff's base that is not negated yet, its locations numbered from locBase.
// When file is set, the graph holds the locations only and the samples are
// read from the file for each walk.
type textPart struct {
	g       *callGraph
	file    *streamedSamples
	si      int
	neg     bool
	locBase int32
}

// samples calls fn with the stack (location indexes, leaf first; do not keep
// it) and the value of every sample whose value is not 0.
func (p textPart) samples(fn func(st []int32, w int64)) error {
	if p.file != nil {
		return p.file.walk(func(st []int32, values []int64) {
			if w := values[p.si]; w != 0 {
				fn(st, w)
			}
		})
	}
	var st []int32
	for i := range p.g.samples() {
		if w := p.g.value(i, p.si); w != 0 {
			st = p.g.stack(i, st)
			fn(st, w)
		}
	}
	return nil
}

// addGraph adds a call graph whose nodes are named as pprof names function
// nodes (infos holds just the name), merging nodes of one name across parts.
func (in *textGraphInput) addGraph(g *callGraph, si int, neg bool, ids map[string]int32) {
	nodeOf := make([]int32, len(g.names))
	for i, name := range g.names {
		id, ok := ids[name]
		if !ok {
			id = int32(len(in.infos))
			ids[name] = id
			in.infos = append(in.infos, textNodeInfo{Name: name})
		}
		nodeOf[i] = id
	}
	base := int32(len(in.locNodes))
	for _, l := range g.locs {
		ns := make([]int32, len(l.lines))
		for j, ln := range l.lines {
			ns[j] = nodeOf[ln.node]
		}
		in.addLocation(ns)
	}
	in.parts = append(in.parts, textPart{g: g, si: si, neg: neg, locBase: base})
}

// newTextGraphInput indexes aggregated profiles (a diff's two read as one, as
// pprof reads their merge) for sample type si.
func newTextGraphInput(srcs []*profile.Profile, si int) *textGraphInput {
	in := &textGraphInput{}
	ids := make(map[textNodeInfo]int32)
	for _, p := range srcs {
		first := int32(len(in.locNodes))
		locIndex := make(map[*profile.Location]int32, len(p.Location))
		for i, l := range p.Location {
			lines := l.Line
			if len(lines) == 0 {
				lines = []profile.Line{{}} // as CreateNodes: one node for the location
			}
			ns := make([]int32, len(lines))
			for j, ln := range lines {
				info := nodeInfoOf(l, ln)
				id, ok := ids[info]
				if !ok {
					id = int32(len(in.infos))
					ids[info] = id
					in.infos = append(in.infos, info)
				}
				ns[j] = id
			}
			in.addLocation(ns)
			locIndex[l] = int32(i)
		}
		g := newCallGraph(1, len(p.Sample), 0, len(p.Location))
		var st []int32
		for _, s := range p.Sample {
			if s.Value[si] == 0 {
				continue // newGraph skips samples without value
			}
			st = st[:0]
			for _, l := range s.Location {
				st = append(st, locIndex[l])
			}
			g.appendSample(st, s.Value[si:si+1])
		}
		in.parts = append(in.parts, textPart{g: g, locBase: first})
	}
	return in
}

// graph is graph.New (graph.newGraph) with report.newGraph's options for -top:
// function nodes, binary names dropped, only the nodes in kept when it is not nil
// (the others become residual: their flat is lost, their calls skipped).
func (r *textReport) graph(kept []bool) ([]*textNode, error) {
	in := r.in
	n := len(in.infos)
	flat, cum := make([]int64, n), make([]int64, n)
	seen := make([]int32, n)
	edges := make(map[uint64]*textEdge)
	// With few nodes (the usual case) the edges are found in a matrix instead
	// of the map: a sample visits every one of its frames' edges.
	var dense []*textEdge
	if n*n <= 1<<16 {
		dense = make([]*textEdge, n*n)
	}
	mark := int32(0)
	for _, part := range in.parts {
		err := part.samples(func(st []int32, w int64) {
			if part.neg {
				w = -w
			}
			mark++
			parent := int32(-1)
			residual := false
			for k := len(st) - 1; k >= 0; k-- {
				locNodes := in.locNodes[part.locBase+st[k]]
				for ni := len(locNodes) - 1; ni >= 0; ni-- {
					id := locNodes[ni]
					if kept != nil && !kept[id] {
						residual = true
						continue
					}
					if seen[id] != mark {
						seen[id] = mark
						cum[id] += w
					}
					if parent >= 0 && id != parent {
						key := uint64(parent)<<32 | uint64(id)
						inline := ni != len(locNodes)-1
						var e *textEdge
						if dense != nil {
							e = dense[int(parent)*n+int(id)]
						} else {
							e = edges[key]
						}
						if e == nil {
							e = &textEdge{inline: inline}
							edges[key] = e
							if dense != nil {
								dense[int(parent)*n+int(id)] = e
							}
						}
						if e.stamp != mark {
							e.stamp = mark
							e.weight += w
							if !inline {
								e.inline = false
							}
						}
					}
					parent = id
					residual = false
				}
			}
			if parent >= 0 && !residual {
				flat[parent] += w
			}
		})
		if err != nil {
			return nil, err
		}
	}

	// selectNodesForGraph
	byID := make([]*textNode, n)
	var out []*textNode
	for id := range n {
		if cum[id] == 0 && flat[id] == 0 {
			continue
		}
		node := &textNode{id: int32(id), info: in.infos[id], flat: flat[id], cum: cum[id]}
		byID[id] = node
		out = append(out, node)
	}
	for key, e := range edges {
		if dest := byID[int32(key&(1<<32-1))]; dest != nil {
			dest.in = append(dest.in, e)
		}
	}
	return out, nil
}

// nodeInfoOf is graph.nodeInfo without -addresses' object names.
func nodeInfoOf(l *profile.Location, line profile.Line) textNodeInfo {
	var objfile string
	if m := l.Mapping; m != nil && m.File != "" {
		objfile = m.File
	}
	if line.Function == nil {
		return textNodeInfo{Address: l.Address, Objfile: objfile}
	}
	ni := textNodeInfo{
		Address:  l.Address,
		Lineno:   int(line.Line),
		Columnno: int(line.Column),
		Name:     line.Function.Name,
	}
	if fname := line.Function.Filename; fname != "" {
		ni.File = filepath.Clean(fname)
	}
	if ni.Name == "" {
		ni.Objfile = objfile
		ni.StartLine = int(line.Function.StartLine)
	}
	return ni
}

// graphFlatTotal is Nodes.Sum's flat (report.graphTotal).
func graphFlatTotal(nodes []*textNode) int64 {
	var t int64
	for _, n := range nodes {
		t += n.flat
	}
	return t
}

// trimLowFrequencyEdges is Graph.TrimLowFrequencyEdges.
func trimLowFrequencyEdges(nodes []*textNode, edgeCutoff int64) {
	for _, n := range nodes {
		kept := n.in[:0]
		for _, e := range n.in {
			if abs64(e.weight) >= edgeCutoff {
				kept = append(kept, e)
			}
		}
		n.in = kept
	}
}

// sortFlatName is Nodes.Sort(FlatNameOrder), with ties of one printed name
// ordered (see orderPrintableName).
func sortFlatName(ns []*textNode) {
	sort.Slice(ns, func(i, j int) bool {
		l, r := ns[i], ns[j]
		if iv, jv := abs64(l.flat), abs64(r.flat); iv != jv {
			return iv > jv
		}
		if c := l.info.orderPrintableName(r.info); c != 0 {
			return c < 0
		}
		if iv, jv := abs64(l.cum), abs64(r.cum); iv != jv {
			return iv > jv
		}
		return fmt.Sprint(l.info) < fmt.Sprint(r.info)
	})
}
