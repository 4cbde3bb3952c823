package pprof

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"unsafe"

	"github.com/leakui/leakui/analyze"
)

// FlameTree is one profile's call tree for one sample type, whole: the stacks of
// every sample with a value, merged from the root (the outermost frame) down by
// function name, every frame (inlined or not) a level, as pprof's flame graph
// merges them. It is what flame graphs of the profile, and diff flame graphs with
// it on either side, are cut from (CutFlame, CutDiffFlame), so a server keeps it
// and builds a diff from two kept trees without walking the profiles again. It
// is never modified once built and is safe for concurrent use.
//
// The nodes are in preorder and the children of a node are ordered by name, so
// two trees are compared by walking them side by side; a node is a name, a value
// and the end of its subtree, 16 bytes.
type FlameTree struct {
	sampleType, unit string
	names            []string // the distinct names, sorted
	// pages hold the nodes in preorder, flamePage at a time (a tree of
	// millions of nodes is made without copying it).
	pages [][]flameNode
	size  int32
	// abs is the sum of the samples' absolute values, pprof's total.
	abs int64
}

// flameNode is a node of a FlameTree.
type flameNode struct {
	name  int32 // index in names; the root's is -1
	end   int32 // one past the last node of its subtree
	value int64 // the sum of the values of the samples through it
}

// SampleType is the sample type the tree sums, such as "inuse_space".
func (t *FlameTree) SampleType() string { return t.sampleType }

// Unit is the unit of its values, such as "bytes".
func (t *FlameTree) Unit() string { return t.unit }

// Total is the root's value: the sum of the values of the samples.
func (t *FlameTree) Total() int64 { return t.node(0).value }

// Len is the number of nodes, the root included.
func (t *FlameTree) Len() int { return int(t.size) }

// node returns node i.
func (t *FlameTree) node(i int32) *flameNode { return &t.pages[i/flamePage][i%flamePage] }

// MemSize is the bytes the tree holds, for a cache that bounds what it keeps.
func (t *FlameTree) MemSize() int64 {
	n := int64(len(t.pages))*flamePage*flameNodeBytes + 160
	for _, s := range t.names {
		n += 16 + int64(len(s))
	}
	return n
}

// label is node i's name; the root is "root", as pprof names it.
func (t *FlameTree) label(i int32) string {
	if n := t.node(i).name; n >= 0 {
		return t.names[n]
	}
	return "root"
}

// Charging the budget while a tree is built: each frame of each sample is
// copied once (2 or 4 bytes), each sample costs two records (its frames' place
// and its value) and a key (36 bytes), and the nodes are charged a page at a
// time.
const (
	flameSampleCost = 36
	flameNodeBytes  = 16
	flamePage       = 1 << 16
)

// FlameTree builds the call tree of one sample type (an index from SampleIndex)
// within a memory budget (nil: unbounded): what the build holds is charged
// before it is allocated, and a tree that would not fit is given up with the
// budget's error (ErrTooLarge or ErrBusy). Nothing stays charged when it
// returns; the caller accounts for the tree it keeps (MemSize). A streamed
// profile's samples are copied into memory for the build, charged as well.
//
// The samples are walked once, copying their frames outermost first; then the
// stacks are sorted level by level (a radix sort on the frame at each depth,
// stable, so that the frames are read in memory order), and the nodes come out
// in preorder with their children ordered by name. A group of samples that are
// already in order (one alone, or a profile written in stack order) is merged
// along their common prefixes instead, in one pass. Each frame is looked at a
// bounded number of times, never through a hash table or a pointer.
func (p *Profile) FlameTree(sampleIndex int, budget *analyze.Budget) (*FlameTree, error) {
	if sampleIndex < 0 || sampleIndex >= len(p.meta.sampleTypes) {
		return nil, fmt.Errorf("%w: sample index %d", analyze.ErrInvalidParameter, sampleIndex)
	}
	p.walks.Add(1)
	local := budget.Child(budget.Remaining())
	defer local.Release()
	st := p.meta.sampleTypes[sampleIndex]
	g, err := p.inMemory(local)
	if err != nil {
		return nil, err
	}
	var t *FlameTree
	switch names := len(g.names); {
	case names < math.MaxUint8:
		t, err = buildFlameTree[uint8](g, sampleIndex, local)
	case names < math.MaxUint16:
		t, err = buildFlameTree[uint16](g, sampleIndex, local)
	default:
		t, err = buildFlameTree[int32](g, sampleIndex, local)
	}
	if err != nil {
		return nil, err
	}
	t.sampleType, t.unit = st.typ, st.unit
	return t, nil
}

// frameKey is a frame's name as its rank among the sorted names: 8 bits when
// the profile has fewer than 255 names, 16 when fewer than 65,535 (the usual
// case), else 32. Its largest value (^0) marks a stack that ends at the level
// being sorted.
type frameKey interface{ ~uint8 | ~uint16 | ~int32 }

// flameSample is a sample being placed in the tree: its frames are
// frames[start:end], outermost first.
type flameSample struct {
	start, end int32
	value      int64
}

// flameTask is a group of samples sharing the path to a node not yet made: the
// node's name and value, its depth, and the samples' places in the work array.
type flameTask struct {
	lo, hi int32
	depth  int32
	name   int32
	value  int64
	// chain frames, at frames[first:], follow the node, each the only child of
	// the one before, and every sample of the group goes through them.
	chain, first int32
	// gathered is true when the group's frames are in the scratch space.
	gathered bool
}

// treeWriter appends nodes in preorder, in pages (the tree grows without
// copying), and closes the subtrees they end.
type treeWriter struct {
	pages  [][]flameNode
	size   int32
	open   []int32 // open[d] is the node at depth d on the path to the last node
	budget *analyze.Budget
}

// at returns node i.
func (w *treeWriter) at(i int32) *flameNode { return &w.pages[i/flamePage][i%flamePage] }

// node appends a node at depth, which closes the open nodes at depth or below.
func (w *treeWriter) node(name int32, value int64, depth int32) error {
	for int32(len(w.open)) > depth {
		w.at(w.open[len(w.open)-1]).end = w.size
		w.open = w.open[:len(w.open)-1]
	}
	if w.size == math.MaxInt32 {
		return fmt.Errorf("%w: a flame tree of more than %d nodes", analyze.ErrTooLarge, math.MaxInt32)
	}
	if w.size%flamePage == 0 {
		if err := w.budget.Charge(flamePage * flameNodeBytes); err != nil {
			return err
		}
		w.pages = append(w.pages, make([]flameNode, 0, flamePage))
	}
	last := len(w.pages) - 1
	w.pages[last] = append(w.pages[last], flameNode{name: name, value: value})
	w.open = append(w.open, w.size)
	w.size++
	return nil
}

// chain appends frames under the last node, each the only child of the one
// before, all of value and ending where the last ends (they stay closed).
func chain[K frameKey](w *treeWriter, frames []K, value int64) error {
	end := w.size + int32(len(frames))
	if end < w.size {
		return fmt.Errorf("%w: a flame tree of more than %d nodes", analyze.ErrTooLarge, math.MaxInt32)
	}
	for len(frames) > 0 {
		if w.size%flamePage == 0 {
			if err := w.budget.Charge(flamePage * flameNodeBytes); err != nil {
				return err
			}
			w.pages = append(w.pages, make([]flameNode, 0, flamePage))
		}
		last := len(w.pages) - 1
		page := w.pages[last]
		n := min(len(frames), cap(page)-len(page))
		for _, f := range frames[:n] {
			page = append(page, flameNode{name: int32(f), end: end, value: value})
		}
		w.pages[last] = page
		w.size += int32(n)
		frames = frames[n:]
	}
	return nil
}

// closeBelow ends the open subtrees deeper than depth.
func (w *treeWriter) closeBelow(depth int32) {
	for int32(len(w.open)) > depth+1 {
		w.at(w.open[len(w.open)-1]).end = w.size
		w.open = w.open[:len(w.open)-1]
	}
}

// stackIndex is a location's index in a sample's stack: 16 bits in a narrow
// call graph, else 32.
type stackIndex interface{ ~uint16 | ~int32 }

// countFrames is the number of frames of a stack's locations.
func countFrames[S stackIndex](stack []S, locStart []int32) int {
	n := int32(0)
	for _, l := range stack {
		n += locStart[l+1] - locStart[l]
	}
	return int(n)
}

// putFrames writes the frames of a stack (leaf first) into out, outermost
// first, and returns how many.
func putFrames[S stackIndex, K frameKey](out []K, stack []S, locStart []int32, locFrames []K) int32 {
	at := int32(0)
	for j := len(stack) - 1; j >= 0; j-- {
		l := stack[j]
		if x, y := locStart[l], locStart[l+1]; y-x == 1 {
			out[at] = locFrames[x]
			at++
		} else {
			at += int32(copy(out[at:], locFrames[x:y]))
		}
	}
	return at
}

// flameBuilder sorts samples into a tree.
type flameBuilder[K frameKey] struct {
	// frames holds the samples' frames, frameCount of them, then a scratch
	// space for a group's (see gather).
	frames     []K
	frameCount int32
	samples    []flameSample
	tmp        []flameSample
	keys       []K
	count      []int32 // per name: samples in the group being sorted, then places
	sum        []int64 // per name: their values
	chain      []int32 // per name: frames below it that all its samples share
	first      []int32 // per name: where those frames are
	w          *treeWriter
}

// compare orders two samples' frames from depth d on (a stack that is a
// prefix of another first) and returns their common length from d.
func (b *flameBuilder[K]) compare(x, y flameSample, d int32) (order int, common int32) {
	fx, fy := b.frames[x.start+d:x.end], b.frames[y.start+d:y.end]
	n := min(len(fx), len(fy))
	i := 0
	for i < n && fx[i] == fy[i] {
		i++
	}
	switch {
	case i < n && fx[i] < fy[i], i == n && len(fx) < len(fy):
		return -1, int32(i)
	case i == n && len(fx) == len(fy):
		return 0, int32(i)
	}
	return 1, int32(i)
}

// inOrder reports whether the samples of [lo, hi) are sorted by their frames
// from depth d on.
func (b *flameBuilder[K]) inOrder(lo, hi, d int32) bool {
	for p := lo + 1; p < hi; p++ {
		if o, _ := b.compare(b.samples[p-1], b.samples[p], d); o > 0 {
			return false
		}
	}
	return true
}

// merge makes the subtree of the last node (at depth d) from the samples of
// [lo, hi), sorted by their frames from d on: each sample adds the frames it
// does not share with the one before, and its value to the last of them; then
// every node of the subtree adds up its children's values.
func (b *flameBuilder[K]) merge(lo, hi, d int32) error {
	w := b.w
	first := w.size
	for p := lo; p < hi; p++ {
		s := b.samples[p]
		common := int32(0)
		if p > lo {
			_, common = b.compare(b.samples[p-1], s, d)
		}
		for j := s.start + d + common; j < s.end; j++ {
			if err := w.node(int32(b.frames[j]), 0, j-s.start+1); err != nil {
				return err
			}
		}
		if depth := s.end - s.start; depth > d {
			w.at(w.open[depth]).value += s.value
		}
	}
	w.closeBelow(d)
	for i := w.size - 1; i >= first; i-- {
		n := w.at(i)
		for c := i + 1; c < n.end; c = w.at(c).end {
			n.value += w.at(c).value
		}
	}
	return nil
}

// flameLookahead is how many frames below a group's next frame partition
// compares, to find the levels where every sample of a child group goes on
// through the same function (a recursion's helper, a goroutine's fixed
// prologue): those are made at once, without a pass over the samples each.
const flameLookahead = 16

// partition sorts the samples of [lo, hi) by their frame at depth d (stably;
// the samples whose stacks end at d first) and returns the names found, in
// order, and where each one's samples start. Then, per name, count holds where
// its samples end, sum their values, and chain how many frames below it all of
// them share (at most flameLookahead, and leaving every one at least a frame
// or its end), which first holds a sample that has them.
func (b *flameBuilder[K]) partition(lo, hi, d int32, touched []K, starts []int32) ([]K, []int32) {
	none := ^K(0)
	touched, starts = touched[:0], starts[:0]
	ended := int32(0)
	ordered := true // the samples are already in order: nothing moves
	last := none
	for p := lo; p < hi; p++ {
		s := b.samples[p]
		at := s.start + d
		if at == s.end {
			b.keys[p] = none
			ended++
			ordered = ordered && last == none
			continue
		}
		k := b.frames[at]
		b.keys[p] = k
		rest := s.end - at - 1 // frames below this one
		if b.count[k] == 0 {
			touched = append(touched, k)
			b.first[k] = at + 1
			b.chain[k] = min(rest, flameLookahead)
		} else if c := min(b.chain[k], rest); c > 0 {
			same, x, y := int32(0), at+1, b.first[k]
			for same < c && b.frames[x+same] == b.frames[y+same] {
				same++
			}
			b.chain[k] = same
		} else {
			b.chain[k] = 0
		}
		b.count[k]++
		b.sum[k] += s.value
		ordered = ordered && (last == none || last <= k)
		last = k
	}
	if len(touched) > 1 {
		slices.Sort(touched)
	}
	at := lo + ended
	for _, k := range touched {
		starts = append(starts, at)
		at, b.count[k] = at+b.count[k], at
	}
	if ordered { // where each group ends, as the scatter below would leave it
		for j, k := range touched {
			b.count[k] = hi
			if j+1 < len(starts) {
				b.count[k] = starts[j+1]
			}
		}
		return touched, starts
	}
	for p := lo; p < hi; p++ {
		if k := b.keys[p]; k != none {
			b.tmp[b.count[k]] = b.samples[p]
			b.count[k]++
		}
	}
	copy(b.samples[lo+ended:hi], b.tmp[lo+ended:hi])
	return touched, starts
}

func buildFlameTree[K frameKey](g *callGraph, si int, budget *analyze.Budget) (*FlameTree, error) {
	// Names by rank: the tree's children are ordered by name.
	order := make([]int32, len(g.names))
	for i := range order {
		order[i] = int32(i)
	}
	sort.Slice(order, func(a, b int) bool { return g.names[order[a]] < g.names[order[b]] })
	t := &FlameTree{names: make([]string, len(order))}
	rank := make([]K, len(order))
	for r, n := range order {
		t.names[r] = g.names[n]
		rank[n] = K(r)
	}
	// Every location's frames as ranks, outermost first.
	locStart := make([]int32, len(g.locs)+1)
	var locFrames []K
	for l, loc := range g.locs {
		for j := len(loc.lines) - 1; j >= 0; j-- {
			locFrames = append(locFrames, rank[loc.lines[j].node])
		}
		locStart[l+1] = int32(len(locFrames))
	}
	var stacks16 []uint16
	var stacks32 []int32
	if g.narrow {
		stacks16 = g.stacks16
	} else {
		stacks32 = g.stacks
	}

	// The samples with a value, and their frames, outermost first. Most
	// locations are one frame (a location of inlined calls is several): when
	// all are, a sample has a frame per location.
	single := len(locFrames) == len(g.locs)
	n, frameCount := 0, 0
	for i := range g.samples() {
		if g.value(i, si) == 0 {
			continue
		}
		n++
		lo, hi := g.offsets[i], g.offsets[i+1]
		switch {
		case single:
			frameCount += int(hi - lo)
		case g.narrow:
			frameCount += countFrames(stacks16[lo:hi], locStart)
		default:
			frameCount += countFrames(stacks32[lo:hi], locStart)
		}
	}
	var zero K
	scratch := min(frameCount, flameScratch)
	if err := budget.Charge(int64(frameCount+scratch)*int64(unsafe.Sizeof(zero)) + int64(n+1)*flameSampleCost); err != nil {
		return nil, err
	}
	if frameCount+scratch >= math.MaxInt32 {
		return nil, fmt.Errorf("%w: %d frames in all; at most %d fit", analyze.ErrTooLarge, frameCount, math.MaxInt32/2)
	}
	b := &flameBuilder[K]{frames: make([]K, frameCount+scratch), frameCount: int32(frameCount), samples: make([]flameSample, 0, n),
		count: make([]int32, len(t.names)), sum: make([]int64, len(t.names)),
		chain: make([]int32, len(t.names)), first: make([]int32, len(t.names)), w: &treeWriter{budget: budget}}
	var rootValue int64
	at := int32(0)
	for i := range g.samples() {
		v := g.value(i, si)
		if v == 0 {
			continue
		}
		start := at
		lo, hi := g.offsets[i], g.offsets[i+1]
		if g.narrow {
			at += putFrames(b.frames[at:], stacks16[lo:hi], locStart, locFrames)
		} else {
			at += putFrames(b.frames[at:], stacks32[lo:hi], locStart, locFrames)
		}
		b.samples = append(b.samples, flameSample{start: start, end: at, value: v})
		rootValue += v
		t.abs += abs64(v)
	}
	if err := b.build(rootValue); err != nil {
		return nil, err
	}
	w := b.w
	w.closeBelow(-1)
	t.pages, t.size = w.pages, w.size
	return t, nil
}

// build makes the tree: the root, then each group of samples sharing a path,
// depth first, a group in order merged at once, the others sorted by their
// next frame into the groups of their children.
func (b *flameBuilder[K]) build(rootValue int64) error {
	n := int32(len(b.samples))
	if err := b.w.node(-1, rootValue, 0); err != nil {
		return err
	}
	if b.inOrder(0, n, 0) {
		return b.merge(0, n, 0)
	}
	b.tmp = make([]flameSample, n)
	b.keys = make([]K, n)
	var touched []K
	var starts []int32
	tasks := []flameTask{{lo: 0, hi: n, depth: 0}}
	for first := true; len(tasks) > 0; first = false {
		task := tasks[len(tasks)-1]
		tasks = tasks[:len(tasks)-1]
		if !first {
			if err := b.w.node(task.name, task.value, task.depth); err != nil {
				return err
			}
		}
		for c := range task.chain {
			if err := b.w.node(int32(b.frames[task.first+c]), task.value, task.depth+1+c); err != nil {
				return err
			}
		}
		lo, hi, d := task.lo, task.hi, task.depth+task.chain
		if hi-lo == 1 { // one sample: the rest of its stack is a chain
			s := b.samples[lo]
			if err := chain(b.w, b.frames[s.start+d:s.end], s.value); err != nil {
				return err
			}
			continue
		}
		gathered := task.gathered || (hi-lo <= flameGatherSamples && b.gather(lo, hi, d))
		touched, starts = b.partition(lo, hi, d, touched, starts)
		for j := len(touched) - 1; j >= 0; j-- { // the first child is made first
			k := touched[j]
			tasks = append(tasks, flameTask{lo: starts[j], hi: b.count[k], depth: d + 1, name: int32(k), value: b.sum[k],
				chain: b.chain[k], first: b.first[k], gathered: gathered})
			b.count[k], b.sum[k] = 0, 0
		}
	}
	return nil
}

// flameGatherSamples is the size of a group whose frames are gathered: tens
// of thousands of stacks, whose frames fit a core's cache.
const flameGatherSamples = 1 << 18

// flameScratch is the most frames the gathered group may have, past frames.
const flameScratch = 1 << 22

// gather copies the rest of the frames (from depth d on) of the samples of
// [lo, hi) into the scratch space after the samples' own frames, in the
// group's order, if they fit: the group's subtree is then made from memory
// that a cache holds, not from frames scattered over the whole profile. The
// group's subtree is made before any other group is gathered (the tasks go
// depth first), so one scratch space serves them all in turn.
func (b *flameBuilder[K]) gather(lo, hi, d int32) bool {
	need := int64(0)
	for _, s := range b.samples[lo:hi] {
		need += int64(s.end - s.start - d)
	}
	if need > int64(len(b.frames))-int64(b.frameCount) {
		return false
	}
	at := b.frameCount
	for p := lo; p < hi; p++ {
		s := &b.samples[p]
		n := int32(copy(b.frames[at:], b.frames[s.start+d:s.end]))
		s.start, s.end = at-d, at+n
		at += n
	}
	return true
}
