package analyze

import (
	"path/filepath"

	"github.com/google/pprof/profile"
)

// callGraph is a profile at pprof's default "functions" granularity: every frame
// (an inlined frame counts as its own) becomes a node named like pprof names it,
// and every sample a stack of node ids.
type callGraph struct {
	names []string // node id → printable name
	// stacks holds every sample's node ids leaf first, concatenated; sample i
	// spans stacks[offsets[i]:offsets[i+1]].
	stacks  []int32
	offsets []int32
	values  [][]int64 // sample i → its values, one per sample type
}

// graphOf returns the call graph of the profile, building it on first use.
func (p *Profile) graphOf() *callGraph {
	if p.graph == nil {
		p.graph = buildCallGraph(p.p)
	}
	return p.graph
}

// buildCallGraph interns node names and flattens the samples.
func buildCallGraph(p *profile.Profile) *callGraph {
	g := &callGraph{offsets: make([]int32, 1, len(p.Sample)+1), values: make([][]int64, 0, len(p.Sample))}
	byName := make(map[string]int32)
	intern := func(name string) int32 {
		id, ok := byName[name]
		if !ok {
			id = int32(len(g.names))
			g.names = append(g.names, name)
			byName[name] = id
		}
		return id
	}
	locNodes := make(map[uint64][]int32, len(p.Location))
	for _, l := range p.Location {
		if len(l.Line) == 0 {
			locNodes[l.ID] = []int32{intern(nodeName(l, profile.Line{}))}
			continue
		}
		ids := make([]int32, len(l.Line))
		for i, line := range l.Line {
			ids[i] = intern(nodeName(l, line))
		}
		locNodes[l.ID] = ids
	}
	for _, s := range p.Sample {
		for _, l := range s.Location {
			g.stacks = append(g.stacks, locNodes[l.ID]...)
		}
		g.offsets = append(g.offsets, int32(len(g.stacks)))
		g.values = append(g.values, s.Value)
	}
	return g
}

// nodeName is pprof's printable name of a frame at "functions" granularity: the
// function name, else the mapped file in brackets, else "<unknown>".
func nodeName(l *profile.Location, line profile.Line) string {
	if line.Function != nil && line.Function.Name != "" {
		return line.Function.Name
	}
	if l.Mapping != nil && l.Mapping.File != "" {
		return "[" + filepath.Base(l.Mapping.File) + "]"
	}
	return "<unknown>"
}

// stack returns sample i's node ids, leaf first.
func (g *callGraph) stack(i int) []int32 { return g.stacks[g.offsets[i]:g.offsets[i+1]] }

// samples is the number of samples.
func (g *callGraph) samples() int { return len(g.values) }
