package pprof

import (
	"path/filepath"

	"github.com/google/pprof/profile"
)

// callGraph is a profile reduced to what leakui's analyses need, at pprof's default
// "functions" granularity: every frame (an inlined frame counts as its own) is a
// node named as pprof names it; every sample is a stack of locations, each location
// a list of frames, innermost first.
type callGraph struct {
	names []string // node id → printable name
	locs  []graphLoc
	// stacks holds every sample's location indexes, leaf first, concatenated;
	// sample i spans stacks[offsets[i]:offsets[i+1]].
	stacks  []int32
	offsets []int32
	// values holds nTypes values per sample: sample i, type j is values[i*nTypes+j].
	values []int64
	nTypes int
}

// graphLoc is one location: its frames, innermost (the callee inlined into the
// others) first, and the file of the binary it is in.
type graphLoc struct {
	lines   []graphLine
	mapFile string
	// hasMapping is true when the location belongs to a mapping (whose file pprof's
	// filters also match, even an empty one).
	hasMapping bool
	// noLines is true when the profile gave the location no frames; lines then
	// holds one placeholder frame named after the mapping.
	noLines bool
}

// graphLine is one frame of a location.
type graphLine struct {
	node int32
	// fn and file are the function's name and source file as the profile gives them
	// (what pprof's filters match); hasFunc is false for an unsymbolized frame.
	fn, file string
	hasFunc  bool
}

// graphBuilder interns node names while a call graph is built.
type graphBuilder struct {
	g      *callGraph
	byName map[string]int32
}

// newGraphBuilder starts a call graph of samples samples and stackEntries
// location references in all, of locs locations (capacities only: the decoder
// knows them from its census; the other callers may pass 0).
func newGraphBuilder(nTypes, samples, stackEntries, locs int) *graphBuilder {
	return &graphBuilder{
		g: &callGraph{
			nTypes:  nTypes,
			offsets: make([]int32, 1, samples+1),
			values:  make([]int64, 0, samples*nTypes),
			stacks:  make([]int32, 0, stackEntries),
			locs:    make([]graphLoc, 0, locs),
		},
		byName: make(map[string]int32),
	}
}

// node returns the id of the node with this name, adding it when new.
func (b *graphBuilder) node(name string) int32 {
	id, ok := b.byName[name]
	if !ok {
		id = int32(len(b.g.names))
		b.g.names = append(b.g.names, name)
		b.byName[name] = id
	}
	return id
}

// line makes a frame, naming it as pprof does at "functions" granularity: the
// function name, else the mapped file in brackets, else "<unknown>".
func (b *graphBuilder) line(fn, file string, hasFunc bool, mapFile string) graphLine {
	name := fn
	if name == "" {
		name = "<unknown>"
		if mapFile != "" {
			name = "[" + filepath.Base(mapFile) + "]"
		}
	}
	return graphLine{node: b.node(name), fn: fn, file: file, hasFunc: hasFunc}
}

// sample appends one sample: its location indexes, leaf first, and its values.
func (b *graphBuilder) sample(locs []int32, values []int64) {
	b.g.stacks = append(b.g.stacks, locs...)
	b.g.offsets = append(b.g.offsets, int32(len(b.g.stacks)))
	b.g.values = append(b.g.values, values...)
}

// graphFromProfile converts a profile parsed by github.com/google/pprof/profile
// (the legacy formats, and protos that ask for frames to be dropped).
func graphFromProfile(p *profile.Profile) *callGraph {
	b := newGraphBuilder(len(p.SampleType), len(p.Sample), 0, len(p.Location))
	index := make(map[uint64]int32, len(p.Location))
	for _, l := range p.Location {
		var loc graphLoc
		if l.Mapping != nil {
			loc.mapFile, loc.hasMapping = l.Mapping.File, true
		}
		if len(l.Line) == 0 {
			loc.lines, loc.noLines = []graphLine{b.line("", "", false, loc.mapFile)}, true
		}
		for _, ln := range l.Line {
			if ln.Function == nil {
				loc.lines = append(loc.lines, b.line("", "", false, loc.mapFile))
				continue
			}
			loc.lines = append(loc.lines, b.line(ln.Function.Name, ln.Function.Filename, true, loc.mapFile))
		}
		index[l.ID] = int32(len(b.g.locs))
		b.g.locs = append(b.g.locs, loc)
	}
	var stack []int32
	for _, s := range p.Sample {
		stack = stack[:0]
		for _, l := range s.Location {
			stack = append(stack, index[l.ID])
		}
		b.sample(stack, s.Value)
	}
	return b.g
}

// samples is the number of samples.
func (g *callGraph) samples() int { return len(g.offsets) - 1 }

// stack returns sample i's location indexes, leaf first.
func (g *callGraph) stack(i int) []int32 { return g.stacks[g.offsets[i]:g.offsets[i+1]] }

// value returns sample i's value of sample type j.
func (g *callGraph) value(i, j int) int64 { return g.values[i*g.nTypes+j] }
