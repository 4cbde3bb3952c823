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
	// sample i spans stacks[offsets[i]:offsets[i+1]]. When every index fits in
	// 16 bits (narrow: at most 65,536 locations, the usual case) they are in
	// stacks16 instead, at half the memory. Read them with stack.
	stacks   []int32
	stacks16 []uint16
	narrow   bool
	offsets  []int32
	// values holds nTypes values per sample: sample i, type j is values[i*nTypes+j].
	// When the decoder knows every value fits in 32 bits (narrowValues) they are
	// in values32 instead, at half the memory. Read them with value.
	values       []int64
	values32     []int32
	narrowValues bool
	nTypes       int
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
	g := newCallGraph(nTypes, samples, stackEntries, locs)
	g.locs = make([]graphLoc, 0, locs)
	return &graphBuilder{g: g, byName: make(map[string]int32)}
}

// newCallGraph makes an empty call graph with room for samples samples and
// stackEntries location references over locs locations (which decides whether
// its stacks are narrow).
func newCallGraph(nTypes, samples, stackEntries, locs int) *callGraph {
	g := &callGraph{
		nTypes:  nTypes,
		offsets: make([]int32, 1, samples+1),
		values:  make([]int64, 0, samples*nTypes),
		narrow:  locs <= 1<<16,
	}
	if g.narrow {
		g.stacks16 = make([]uint16, 0, stackEntries)
	} else {
		g.stacks = make([]int32, 0, stackEntries)
	}
	return g
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
	b.g.appendSample(locs, values)
}

// appendSample appends one sample: its location indexes, leaf first, and its
// values.
func (g *callGraph) appendSample(locs []int32, values []int64) {
	if g.narrow {
		for _, l := range locs {
			g.stacks16 = append(g.stacks16, uint16(l))
		}
		g.offsets = append(g.offsets, int32(len(g.stacks16)))
	} else {
		g.stacks = append(g.stacks, locs...)
		g.offsets = append(g.offsets, int32(len(g.stacks)))
	}
	if g.narrowValues {
		for _, v := range values {
			if int64(int32(v)) != v {
				g.widenValues()
				g.values = append(g.values, values...)
				return
			}
		}
		for _, v := range values {
			g.values32 = append(g.values32, int32(v))
		}
		return
	}
	g.values = append(g.values, values...)
}

// useNarrowValues makes the graph keep its values in 32 bits, with room for n;
// it must be empty.
func (g *callGraph) useNarrowValues(n int) {
	g.narrowValues, g.values, g.values32 = true, nil, make([]int32, 0, n)
}

// widenValues moves the values to 64 bits.
func (g *callGraph) widenValues() {
	g.values = make([]int64, len(g.values32), cap(g.values32))
	for i, v := range g.values32 {
		g.values[i] = int64(v)
	}
	g.narrowValues, g.values32 = false, nil
}

// numValues is the number of values (samples × types).
func (g *callGraph) numValues() int {
	if g.narrowValues {
		return len(g.values32)
	}
	return len(g.values)
}

// valueAt is the k-th value: sample k/nTypes, type k%nTypes.
func (g *callGraph) valueAt(k int) int64 {
	if g.narrowValues {
		return int64(g.values32[k])
	}
	return g.values[k]
}

// sampleValues copies sample i's values into buf.
func (g *callGraph) sampleValues(i int, buf []int64) []int64 {
	buf = buf[:0]
	for j := range g.nTypes {
		buf = append(buf, g.value(i, j))
	}
	return buf
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

// stack returns sample i's location indexes, leaf first: in buf (reused) when
// the stacks are narrow, else a slice of the graph's own. Do not keep it.
func (g *callGraph) stack(i int, buf []int32) []int32 {
	if !g.narrow {
		return g.stacks[g.offsets[i]:g.offsets[i+1]]
	}
	buf = buf[:0]
	for _, l := range g.stacks16[g.offsets[i]:g.offsets[i+1]] {
		buf = append(buf, int32(l))
	}
	return buf
}

// value returns sample i's value of sample type j.
func (g *callGraph) value(i, j int) int64 { return g.valueAt(i*g.nTypes + j) }
