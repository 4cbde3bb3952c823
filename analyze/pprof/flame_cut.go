package pprof

import (
	"fmt"
	"iter"

	"github.com/leakui/leakui/analyze"
)

// FlameCut is what a flame graph shows of one tree, or a diff flame graph of two:
// the boxes wide enough to draw, at most maxFlameNodes of them, the widest
// first. It holds the trees and which of their nodes are kept, never a copy of
// the boxes: Walk streams them in preorder, straight from the trees.
//
// A box's width is what pprof's flame graph (the /ui/flamegraph of
// `go tool pprof -http`) makes it: the sum of its stacks' magnitudes, base and
// target added in a diff, where the base's stacks are negative (sumneg and
// sumpos, internal/driver/html/stacks.js:376-378; groupWidth, :302-303). pprof
// draws no box narrower than MIN_WIDTH = 4 pixels (:10) of a chart whose full
// width is the root's (xscale, :245; renderGroup: `if (width < MIN_WIDTH)
// return;`, :309), and a box not drawn takes its subtree with it. MinFraction
// is that rule as a fraction of the root: a box is kept when width ≥
// MinFraction × the root's width (4/(W−4) is pprof's on a chart W pixels wide).
// It is the flame graph's rule, not -nodefraction's (internal/report/report.go:138,
// internal/graph/graph.go:781, a node's |cum| against the total): pprof turns
// trimming off for its flame graph (internal/driver/stacks.go:30,
// `cfg.Trim = false`, which zeroes NodeFraction at internal/driver/driver.go:228).
// Lines of github.com/google/pprof v0.0.0-20261105003125-4bf881d7fb0b (the
// same in the v0.0.0-20251114195745-4902fdda35c8 that Go 1.26 vendors).
type FlameCut struct {
	SampleType, Unit string
	// Total and BaseTotal are the roots' values: the target's (or the one
	// tree's) and, in a diff, the base's. AbsTotal and BaseAbsTotal are the
	// sums of their samples' absolute values, pprof's totals (the same but for
	// profiles with negative values).
	Total, BaseTotal       int64
	AbsTotal, BaseAbsTotal int64
	Diff                   bool
	// Nodes is the number of boxes kept. Dropped is the number of the target's
	// nodes (or the one tree's) left out, whose values add up to Hidden, and
	// BaseDropped the base's, in a diff.
	Nodes, Dropped, BaseDropped int
	Hidden                      int64
	MinFraction                 float64

	target, base *FlameTree // base is an empty tree unless Diff
	// targetRank and baseRank map each tree's names to their rank among the
	// names of both, so that children are merged by name.
	targetRank, baseRank []int32
	kept                 map[flamePair]struct{}
}

// flamePair is a box of the merged trees: its node in the target and in the
// base, -1 where the tree has none.
type flamePair struct{ t, b int32 }

// FlameBox is one box of a cut, as Walk streams it: its name, its value (the
// target's in a diff), the base's value at the same place, and its depth (the
// root's is 0).
type FlameBox struct {
	Name        string
	Value, Base int64
	Depth       int
}

// CutFlame cuts the flame graph of one tree, keeping boxes at least minFraction
// of the root wide.
func CutFlame(tree *FlameTree, minFraction float64) *FlameCut {
	return newCut(tree, emptyFlameTree(tree), minFraction, false)
}

// CutDiffFlame cuts the diff flame graph of base and target, trees of the same
// sample type: the boxes are the union of both trees' nodes, each with the
// target's value and the base's, and a box is kept when its base and target
// values together are at least minFraction of both totals together, as pprof's
// flame graph of `-diff_base` draws them. Trees of different sample types are
// refused with ErrMismatch.
func CutDiffFlame(base, target *FlameTree, minFraction float64) (*FlameCut, error) {
	if base.sampleType != target.sampleType || base.unit != target.unit {
		return nil, fmt.Errorf("%w: the base measures %s (%s) and the target %s (%s)", analyze.ErrMismatch, base.sampleType, base.unit, target.sampleType, target.unit)
	}
	return newCut(target, base, minFraction, true), nil
}

// emptyFlameTree is a tree of one root of value 0, the other side of a cut of
// one tree.
func emptyFlameTree(like *FlameTree) *FlameTree {
	return &FlameTree{sampleType: like.sampleType, unit: like.unit, pages: [][]flameNode{{{name: -1, end: 1}}}, size: 1}
}

func newCut(target, base *FlameTree, minFraction float64, diff bool) *FlameCut {
	c := &FlameCut{SampleType: target.sampleType, Unit: target.unit, Total: target.Total(), MinFraction: minFraction, Diff: diff,
		target: target, base: base, kept: map[flamePair]struct{}{}}
	c.AbsTotal = target.abs
	if diff {
		c.BaseTotal, c.BaseAbsTotal = base.Total(), base.abs
	}
	c.targetRank, c.baseRank = unionRanks(target.names, base.names)
	c.choose()
	return c
}

// unionRanks ranks the names of two sorted lists among the names of both.
func unionRanks(a, b []string) (ra, rb []int32) {
	ra, rb = make([]int32, len(a)), make([]int32, len(b))
	r := int32(0)
	for i, j := 0, 0; i < len(a) || j < len(b); r++ {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			ra[i] = r
			i++
		case i == len(a) || b[j] < a[i]:
			rb[j] = r
			j++
		default:
			ra[i], rb[j] = r, r
			i, j = i+1, j+1
		}
	}
	return ra, rb
}

// width is a box's width: the magnitudes of its values, base and target added
// (in 64 unsigned bits, which two int64 magnitudes cannot overflow).
func (c *FlameCut) width(p flamePair) uint64 {
	var w uint64
	if p.t >= 0 {
		w += uint64(abs64(c.target.node(p.t).value))
	}
	if p.b >= 0 {
		w += uint64(abs64(c.base.node(p.b).value))
	}
	return w
}

// children appends the children of box p to buf, ordered by name: the target's
// and the base's children merged, a name on both sides becoming one box.
func (c *FlameCut) children(p flamePair, buf []flamePair) []flamePair {
	t, b := c.target, c.base
	var i, iEnd, j, jEnd int32
	if p.t >= 0 {
		i, iEnd = p.t+1, t.node(p.t).end
	}
	if p.b >= 0 {
		j, jEnd = p.b+1, b.node(p.b).end
	}
	for i < iEnd && j < jEnd {
		x, y := t.node(i), b.node(j)
		switch rx, ry := c.targetRank[x.name], c.baseRank[y.name]; {
		case rx < ry:
			buf = append(buf, flamePair{i, -1})
			i = x.end
		case ry < rx:
			buf = append(buf, flamePair{-1, j})
			j = y.end
		default:
			buf = append(buf, flamePair{i, j})
			i, j = x.end, y.end
		}
	}
	for ; i < iEnd; i = t.node(i).end {
		buf = append(buf, flamePair{i, -1})
	}
	for ; j < jEnd; j = b.node(j).end {
		buf = append(buf, flamePair{-1, j})
	}
	return buf
}

// pruned reports whether a box of width w is left out of a cut of minFraction
// whose root has width rootWidth: pprof's flame graph rule, w narrower than
// minFraction of the root (see FlameCut). A box of width 0 is always left out.
func pruned(w uint64, rootWidth, minFraction float64) bool {
	return w == 0 || float64(w) < minFraction*rootWidth
}

// choose keeps the widest boxes, widest first, until maxFlameNodes are kept or
// the next is pruned: a box is never wider than its parent, so every kept box's
// parent is kept. Then it counts what is left out.
func (c *FlameCut) choose() {
	root := flamePair{0, 0}
	rootWidth := float64(c.target.abs) + float64(c.base.abs)
	c.kept[root] = struct{}{}
	c.Nodes = 1
	q := &flameQueue{cut: c}
	var kids []flamePair
	push := func(p flamePair) {
		kids = c.children(p, kids[:0])
		for _, k := range kids {
			if !pruned(c.width(k), rootWidth, c.MinFraction) {
				q.push(k)
			}
		}
	}
	push(root)
	for len(q.items) > 0 && c.Nodes < maxFlameNodes {
		p := q.pop()
		c.kept[p] = struct{}{}
		c.Nodes++
		push(p)
	}
	// What is left out: each tree's nodes not kept, and the target's values
	// under the children of kept boxes that are not kept.
	keptTarget, keptBase := 0, 0
	for p := range c.kept {
		if p.t >= 0 {
			keptTarget++
		}
		if p.b >= 0 {
			keptBase++
		}
		kids = c.children(p, kids[:0])
		for _, k := range kids {
			if _, ok := c.kept[k]; !ok && k.t >= 0 {
				c.Hidden += abs64(c.target.node(k.t).value)
			}
		}
	}
	c.Dropped = c.target.Len() - keptTarget
	if c.Diff {
		c.BaseDropped = c.base.Len() - keptBase
	}
}

// flameQueue is a max-heap of boxes by width, then by place (for a cut that is
// the same every time).
type flameQueue struct {
	items []flamePair
	cut   *FlameCut
}

func (q *flameQueue) less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if wa, wb := q.cut.width(a), q.cut.width(b); wa != wb {
		return wa > wb
	}
	if a.t != b.t {
		return a.t < b.t
	}
	return a.b < b.b
}

func (q *flameQueue) push(p flamePair) {
	q.items = append(q.items, p)
	for i := len(q.items) - 1; i > 0; {
		parent := (i - 1) / 2
		if !q.less(i, parent) {
			break
		}
		q.items[i], q.items[parent] = q.items[parent], q.items[i]
		i = parent
	}
}

func (q *flameQueue) pop() flamePair {
	top := q.items[0]
	last := len(q.items) - 1
	q.items[0] = q.items[last]
	q.items = q.items[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && q.less(l, m) {
			m = l
		}
		if r < last && q.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		q.items[i], q.items[m] = q.items[m], q.items[i]
		i = m
	}
	return top
}

// Walk streams the kept boxes in preorder, children by name, from the trees.
func (c *FlameCut) Walk() iter.Seq[FlameBox] {
	return func(yield func(FlameBox) bool) {
		type entry struct {
			p     flamePair
			depth int
		}
		stack := []entry{{flamePair{0, 0}, 0}}
		var kids []flamePair
		for len(stack) > 0 {
			e := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			box := FlameBox{Depth: e.depth}
			if e.p.t >= 0 {
				box.Name, box.Value = c.target.label(e.p.t), c.target.node(e.p.t).value
			}
			if e.p.b >= 0 {
				box.Name, box.Base = c.base.label(e.p.b), c.base.node(e.p.b).value
			}
			if !yield(box) {
				return
			}
			kids = c.children(e.p, kids[:0])
			for i := len(kids) - 1; i >= 0; i-- {
				if _, ok := c.kept[kids[i]]; ok {
					stack = append(stack, entry{kids[i], e.depth + 1})
				}
			}
		}
	}
}

// Graph builds the cut as a FlameGraph, a tree of FlameNodes (for JSON).
func (c *FlameCut) Graph() FlameGraph {
	fg := FlameGraph{SampleType: c.SampleType, Unit: c.Unit, Total: c.Total, BaseTotal: c.BaseTotal, Diff: c.Diff,
		Nodes: c.Nodes, Dropped: c.Dropped, BaseDropped: c.BaseDropped, Hidden: c.Hidden, MinFraction: c.MinFraction}
	var path []*FlameNode
	for box := range c.Walk() {
		n := &FlameNode{Name: box.Name, Value: box.Value, Base: box.Base}
		path = path[:box.Depth]
		if box.Depth == 0 {
			fg.Root = n
		} else {
			parent := path[box.Depth-1]
			parent.Children = append(parent.Children, n)
		}
		path = append(path, n)
	}
	return fg
}

// maxFlameNodes caps the boxes of one flame graph whatever the profile.
const maxFlameNodes = 20000
