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
// Parts of this file are ported from github.com/google/pprof as Go 1.26 vendors
// it (cmd/vendor/github.com/google/pprof, version
// v0.0.0-20251114195745-4902fdda35c8): internal/graph/graph.go and
// internal/report/report.go.
//
// The ported parts are the flat order of Nodes.Sort and the node cutoff of
// newTrimmedGraph, which the leakui authors changed to work on top rows.

package pprof

import (
	"fmt"
	"sort"
	"strings"

	"github.com/leakui/leakui/analyze"
)

// TopRow is one function of a top table: its own value (flat) and its value
// including everything it called (cum), in the unit of the sample type.
type TopRow struct {
	Name string `json:"name"`
	Flat int64  `json:"flat"`
	Cum  int64  `json:"cum"`
}

// TopResult is what `go tool pprof -top -sample_index=X` prints: every function with
// flat and cum, ordered by flat (largest absolute value first), then by name, then
// by cum.
type TopResult struct {
	SampleType string `json:"sample_type"`
	Unit       string `json:"unit"`
	// Total is the whole profile's total, also after filtering (as in pprof).
	Total int64 `json:"total"`
	// Shown is the total of the samples a filter kept; it equals Total unfiltered.
	Shown int64    `json:"shown"`
	Rows  []TopRow `json:"rows"`
	// Dropped is how many rows a trim left out (see Trimmed), those whose |cum|
	// is at most DroppedCutoff; both are 0 untrimmed.
	Dropped       int   `json:"dropped,omitempty"`
	DroppedCutoff int64 `json:"dropped_cutoff,omitempty"`
	// ProvenLeaked marks the Go runtime's goroutineleak profile (see
	// IsGoroutineLeakProfile); Leaked is how many goroutines it proves leaked,
	// its whole total: "proven leaked: N".
	ProvenLeaked bool  `json:"proven_leaked,omitempty"`
	Leaked       int64 `json:"leaked,omitempty"`
}

// Top computes the top table of one sample type (an index from SampleIndex) with
// pprof's aggregation: every frame, inlined or not, is a function node; a node
// counts once in cum per sample however often it recurs; flat goes to the leaf.
// A streamed profile computes it over one walk of its file, which can fail.
func (p *Profile) Top(sampleIndex int) (TopResult, error) {
	if sampleIndex < 0 || sampleIndex >= len(p.meta.sampleTypes) {
		return TopResult{}, fmt.Errorf("%w: sample index %d", analyze.ErrInvalidParameter, sampleIndex)
	}
	st := p.meta.sampleTypes[sampleIndex]
	var res TopResult
	if p.stream != nil {
		in := &textGraphInput{}
		p.addTo(in, sampleIndex, false, map[string]int32{})
		nodes, err := (&textReport{in: in}).graph(nil)
		if err != nil {
			return TopResult{}, err
		}
		res.Rows = make([]TopRow, len(nodes))
		for i, n := range nodes {
			res.Rows[i] = TopRow{Name: n.info.Name, Flat: n.flat, Cum: n.cum}
		}
		sortTopRows(res.Rows)
		res.Total = p.stream.totals[sampleIndex]
	} else {
		res = topOf(p.graph, sampleIndex)
	}
	res.SampleType, res.Unit, res.Shown = st.typ, st.unit, res.Total
	if p.totals != nil {
		res.Total = p.totals[sampleIndex]
	}
	if p.IsGoroutineLeakProfile() {
		res.ProvenLeaked, res.Leaked = true, res.Total
	}
	return res, nil
}

// topOf aggregates one sample type of a call graph into sorted rows.
func topOf(g *callGraph, sampleIndex int) TopResult {
	flat, cum, total := nodeValues(g, sampleIndex)
	rows := make([]TopRow, 0, len(g.names))
	for n, name := range g.names {
		if flat[n] == 0 && cum[n] == 0 {
			continue
		}
		rows = append(rows, TopRow{Name: name, Flat: flat[n], Cum: cum[n]})
	}
	sortTopRows(rows)
	return TopResult{Total: total, Rows: rows}
}

// nodeValues returns every node's flat and cum value of one sample type and the
// total, as pprof's graph builder computes them.
func nodeValues(g *callGraph, sampleIndex int) (flat, cum []int64, total int64) {
	flat = make([]int64, len(g.names))
	cum = make([]int64, len(g.names))
	seen := make([]int32, len(g.names)) // sample number + 1 that last counted the node
	var stack []int32
	for i := range g.samples() {
		v := g.value(i, sampleIndex)
		if v == 0 {
			continue
		}
		total += abs64(v)
		stack = g.stack(i, stack)
		if len(stack) == 0 {
			continue
		}
		mark := int32(i + 1)
		for _, l := range stack {
			for _, ln := range g.locs[l].lines {
				if seen[ln.node] != mark {
					seen[ln.node] = mark
					cum[ln.node] += v
				}
			}
		}
		flat[g.locs[stack[0]].lines[0].node] += v
	}
	return flat, cum, total
}

// walkValues calls fn with the stack (location indexes, leaf first; do not keep
// it) and the value of type si of every sample whose value is not 0: from the
// samples in memory, or over one walk of the file.
func (p *Profile) walkValues(si int, fn func(stack []int32, v int64)) error {
	if p.stream != nil {
		return p.stream.walk(func(stack []int32, values []int64) {
			if v := values[si]; v != 0 {
				fn(stack, v)
			}
		})
	}
	g := p.graph
	var stack []int32
	for i := range g.samples() {
		if v := g.value(i, si); v != 0 {
			stack = g.stack(i, stack)
			fn(stack, v)
		}
	}
	return nil
}

// profileNodeValues is nodeValues for any profile: from the samples in memory,
// or over one walk of the file.
func profileNodeValues(p *Profile, si int) (flat, cum []int64, total int64, err error) {
	if p.stream == nil {
		flat, cum, total = nodeValues(p.graph, si)
		return flat, cum, total, nil
	}
	g := p.tables()
	flat, cum = make([]int64, len(g.names)), make([]int64, len(g.names))
	seen := make([]int32, len(g.names))
	mark := int32(0)
	err = p.walkValues(si, func(stack []int32, v int64) {
		total += abs64(v)
		if len(stack) == 0 {
			return
		}
		mark++
		for _, l := range stack {
			for _, ln := range g.locs[l].lines {
				if seen[ln.node] != mark {
					seen[ln.node] = mark
					cum[ln.node] += v
				}
			}
		}
		flat[g.locs[stack[0]].lines[0].node] += v
	})
	return flat, cum, total, err
}

// sortTopRows orders rows as pprof's -top does.
func sortTopRows(rows []TopRow) {
	sort.Slice(rows, func(i, j int) bool { return topLess(rows[i], rows[j]) })
}

// topLess is pprof's flat order: the larger absolute flat first, then the name, then
// the larger absolute cum.
func topLess(a, b TopRow) bool {
	if fa, fb := abs64(a.Flat), abs64(b.Flat); fa != fb {
		return fa > fb
	}
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c < 0
	}
	return abs64(a.Cum) > abs64(b.Cum)
}

// Trimmed is the table trimmed as `go tool pprof -top` trims it with
// -nodefraction=nodeFraction (see PprofTrim): the rows it shows, in its order,
// with Dropped and DroppedCutoff saying what its "Dropped N nodes (cum <= C)"
// says. A table already trimmed is trimmed again from the rows it has.
func (t TopResult) Trimmed(nodeFraction float64) TopResult {
	kept, dropped, cutoff := t.PprofTrim(nodeFraction)
	t.Rows = kept
	t.Dropped += dropped
	if dropped > 0 {
		t.DroppedCutoff = cutoff
	}
	return t
}

// PprofTrim is what `go tool pprof -top` with -nodefraction=nodeFraction does to
// the table (report.newTrimmedGraph): it drops the rows whose |cum| is below
// nodeFraction × the sum of the flats, and says "Dropped N nodes (cum <= C)" with
// C = nodeFraction × Total. Kept rows keep their values and order: pprof rebuilds
// the graph without the dropped nodes, which moves no flat or cum value to another
// node. It returns the kept rows, how many were dropped, and C.
func (t TopResult) PprofTrim(nodeFraction float64) (kept []TopRow, dropped int, cutoff int64) {
	var flatSum int64
	for _, r := range t.Rows {
		flatSum += r.Flat
	}
	nodeCutoff := abs64(int64(float64(flatSum) * nodeFraction))
	cutoff = abs64(int64(float64(t.Total) * nodeFraction))
	if nodeCutoff <= 0 {
		return t.Rows, 0, cutoff
	}
	kept = make([]TopRow, 0, len(t.Rows))
	for _, r := range t.Rows {
		if abs64(r.Cum) >= nodeCutoff {
			kept = append(kept, r)
		}
	}
	return kept, len(t.Rows) - len(kept), cutoff
}
