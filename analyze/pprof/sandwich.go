package pprof

import (
	"fmt"
	"sort"

	"github.com/leakui/leakui/analyze"
)

// Sandwich is one function with its callers above and its callees below, as
// Pyroscope's and speedscope's sandwich views show it: Flat and Cum are the
// function's own values exactly as Top computes them (a function counts once per
// sample however often it recurs), and each caller's or callee's Value is what
// flowed through that one call edge (each edge counted once per sample).
type Sandwich struct {
	Name       string         `json:"name"`
	SampleType string         `json:"sample_type"`
	Unit       string         `json:"unit"`
	Total      int64          `json:"total"`
	Flat       int64          `json:"flat"`
	Cum        int64          `json:"cum"`
	Callers    []SandwichEdge `json:"callers"`
	Callees    []SandwichEdge `json:"callees"`
	// Roots is the part of Cum in samples where the function is the outermost
	// frame (it has no caller there).
	Roots int64 `json:"roots,omitempty"`
}

// SandwichEdge is a caller or callee of a sandwich's function and the value
// that went through the call.
type SandwichEdge struct {
	Name  string `json:"name"`
	Value int64  `json:"value"`
}

// Sandwich computes the sandwich of the function named name (a top table row's
// name) over one sample type. A name that no sample holds is
// ErrInvalidParameter. Recursive calls of the function to itself are not listed
// as its callers or callees.
func (p *Profile) Sandwich(sampleIndex int, name string) (Sandwich, error) {
	if sampleIndex < 0 || sampleIndex >= len(p.meta.sampleTypes) {
		return Sandwich{}, fmt.Errorf("%w: sample index %d", analyze.ErrInvalidParameter, sampleIndex)
	}
	st := p.meta.sampleTypes[sampleIndex]
	g := p.tables()
	sw := Sandwich{Name: name, SampleType: st.typ, Unit: st.unit}
	target := int32(-1)
	for i, n := range g.names {
		if n == name {
			target = int32(i)
			break
		}
	}
	callers := map[int32]int64{}
	callees := map[int32]int64{}
	seen := map[int32]bool{}
	var frames []int32
	err := p.walkValues(sampleIndex, func(buf []int32, v int64) {
		sw.Total += abs64(v)
		if target < 0 {
			return
		}
		frames = frames[:0]
		for _, l := range buf {
			for _, ln := range g.locs[l].lines {
				frames = append(frames, ln.node)
			}
		}
		if len(frames) == 0 {
			return
		}
		found := false
		clear(seen)
		for k, n := range frames {
			if n != target {
				continue
			}
			found = true
			if k+1 < len(frames) && frames[k+1] != target && !seen[frames[k+1]] {
				seen[frames[k+1]] = true
				callers[frames[k+1]] += v
			}
		}
		if !found {
			return
		}
		sw.Cum += v
		if frames[0] == target {
			sw.Flat += v
		}
		if frames[len(frames)-1] == target {
			sw.Roots += v
		}
		clear(seen)
		for k, n := range frames {
			if n == target && k > 0 && frames[k-1] != target && !seen[frames[k-1]] {
				seen[frames[k-1]] = true
				callees[frames[k-1]] += v
			}
		}
	})
	if err != nil {
		return Sandwich{}, err
	}
	if p.totals != nil {
		sw.Total = p.totals[sampleIndex]
	}
	if sw.Cum == 0 && sw.Flat == 0 {
		return sw, fmt.Errorf("%w: no sample of %s holds a function named %q", analyze.ErrInvalidParameter, st.typ, name)
	}
	sw.Callers = sandwichEdges(g, callers)
	sw.Callees = sandwichEdges(g, callees)
	return sw, nil
}

// sandwichEdges lists the edges by value, largest first, then by name.
func sandwichEdges(g *callGraph, m map[int32]int64) []SandwichEdge {
	out := make([]SandwichEdge, 0, len(m))
	for n, v := range m {
		out = append(out, SandwichEdge{Name: g.names[n], Value: v})
	}
	sort.Slice(out, func(i, j int) bool {
		if a, b := abs64(out[i].Value), abs64(out[j].Value); a != b {
			return a > b
		}
		return out[i].Name < out[j].Name
	})
	return out
}
