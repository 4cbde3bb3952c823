package pprof

import (
	"container/heap"
	"fmt"
	"sort"

	"github.com/leakui/leakui/analyze"
)

// FlameNode is one box of a flame graph: a function at a position in the call tree,
// with the value of every sample whose stack passes through it.
type FlameNode struct {
	Name string `json:"name"`
	// Value is the node's value (the target's, in a diff).
	Value int64 `json:"value"`
	// Base is the base profile's value at the same position, in a diff.
	Base     int64        `json:"base,omitempty"`
	Children []*FlameNode `json:"children,omitempty"`
}

// FlameGraph is a call tree ready to draw: root at the top, children ordered by
// name, boxes narrower than MinFraction of the total dropped and accounted for in
// Hidden.
type FlameGraph struct {
	SampleType string     `json:"sample_type"`
	Unit       string     `json:"unit"`
	Total      int64      `json:"total"`
	BaseTotal  int64      `json:"base_total,omitempty"`
	Diff       bool       `json:"diff,omitempty"`
	Root       *FlameNode `json:"root"`
	// Nodes is the number of boxes kept; Dropped the number left out, whose value
	// adds up to Hidden.
	Nodes       int     `json:"nodes"`
	Dropped     int     `json:"dropped"`
	Hidden      int64   `json:"hidden"`
	MinFraction float64 `json:"min_fraction"`
}

// DefaultFlameFraction keeps boxes of at least 1/20,000 of the total: a few
// thousand boxes even for profiles of hundreds of thousands of stacks, and detail
// left for a few levels of zoom.
const DefaultFlameFraction = 1.0 / 20000

// Flame builds the flame graph of one sample type.
func (p *Profile) Flame(sampleIndex int, minFraction float64) FlameGraph {
	fg, _ := p.FlameWithin(sampleIndex, minFraction, nil)
	return fg
}

// FlameWithin is Flame within a memory budget (nil: unbounded): the call tree is
// charged as it grows, node by node, and a tree that would not fit is given up
// with the budget's error (ErrTooLarge or ErrBusy). Nothing stays charged.
func (p *Profile) FlameWithin(sampleIndex int, minFraction float64, budget *analyze.Budget) (FlameGraph, error) {
	t := newFlameTree(budget)
	defer t.budget.Release()
	if err := t.add(p.graph, sampleIndex, false); err != nil {
		return FlameGraph{}, err
	}
	st := p.meta.sampleTypes[sampleIndex]
	return t.graph(st.typ, st.unit, minFraction, false), nil
}

// DiffFlame builds a differential flame graph: box widths are the target's values,
// and every box also carries the base's value at the same position, for colouring
// by growth.
func DiffFlame(base, target *Profile, sampleIndex int, minFraction float64) (FlameGraph, error) {
	return DiffFlameWithin(base, target, sampleIndex, minFraction, nil)
}

// DiffFlameWithin is DiffFlame within a memory budget, as FlameWithin.
func DiffFlameWithin(base, target *Profile, sampleIndex int, minFraction float64, budget *analyze.Budget) (FlameGraph, error) {
	if !base.SameType(target) {
		return FlameGraph{}, fmt.Errorf("%w: the base measures %s and the target %s", analyze.ErrMismatch, base.TypeNames(), target.TypeNames())
	}
	t := newFlameTree(budget)
	defer t.budget.Release()
	if err := t.add(target.graph, sampleIndex, false); err != nil {
		return FlameGraph{}, err
	}
	if err := t.add(base.graph, sampleIndex, true); err != nil {
		return FlameGraph{}, err
	}
	st := target.meta.sampleTypes[sampleIndex]
	return t.graph(st.typ, st.unit, minFraction, true), nil
}

// flameTree accumulates stacks into a tree keyed by function name. A node's
// children are a linked list (first kid, next sibling: no slice per node), searched
// in place while they are few; a node with many children (more than
// flameScanKids) finds them through one map keyed by (parent, name id) instead, so
// a hostile fan-out costs no quadratic time.
type flameTree struct {
	// pages hold the nodes, flamePage at a time: the tree grows without
	// copying (a slice that doubles would allocate five times its final size).
	pages    [][]flameTreeNode
	size     int
	children map[uint64]int32 // parent<<32 | name id → child, for parents with many kids
	names    []string         // name id → name
	nameIDs  map[string]int32
	// budget is charged every flameChargeEvery nodes; charged counts them.
	budget  *analyze.Budget
	charged int
}

type flameTreeNode struct {
	name           int32
	firstKid, next int32 // -1: none
	kids           int32
	value, base    int64
}

// flameScanKids is the most children searched in their list; beyond, the map.
const flameScanKids = 16

// flamePage is the number of nodes of one page (2 MiB).
const flamePage = 1 << 16

// node returns node i.
func (t *flameTree) node(i int32) *flameTreeNode { return &t.pages[i>>16][i&(flamePage-1)] }

// newNode appends a node and returns its index.
func (t *flameTree) newNode(n flameTreeNode) int32 {
	if t.size%flamePage == 0 {
		t.pages = append(t.pages, make([]flameTreeNode, 0, flamePage))
	}
	last := len(t.pages) - 1
	t.pages[last] = append(t.pages[last], n)
	t.size++
	return int32(t.size - 1)
}

// Charging the budget: a node costs its 32 bytes and a little for its page's
// slack, and an entry in the map of wide parents about 48; the tree charges per
// flameChargeEvery nodes.
const (
	flameNodeCost    = 40
	flameMapCost     = 48
	flameChargeEvery = 4096
)

func newFlameTree(budget *analyze.Budget) *flameTree {
	t := &flameTree{children: make(map[uint64]int32), nameIDs: make(map[string]int32), budget: budget.Child(budget.Remaining())}
	t.newNode(flameTreeNode{name: t.nameID("root"), firstKid: -1, next: -1})
	return t
}

func (t *flameTree) nameID(name string) int32 {
	id, ok := t.nameIDs[name]
	if !ok {
		id = int32(len(t.names))
		t.names = append(t.names, name)
		t.nameIDs[name] = id
	}
	return id
}

// child returns cur's child named name, adding it when new.
func (t *flameTree) child(cur, name int32) (int32, error) {
	n := t.node(cur)
	if n.kids <= flameScanKids {
		for c := n.firstKid; c >= 0; {
			k := t.node(c)
			if k.name == name {
				return c, nil
			}
			c = k.next
		}
	} else if c, ok := t.children[uint64(cur)<<32|uint64(uint32(name))]; ok {
		return c, nil
	}
	if t.size-t.charged >= flameChargeEvery {
		if err := t.budget.Charge(flameChargeEvery * flameNodeCost); err != nil {
			return 0, err
		}
		t.charged += flameChargeEvery
	}
	c := t.newNode(flameTreeNode{name: name, firstKid: -1, next: n.firstKid})
	n = t.node(cur)
	n.firstKid = c
	n.kids++
	switch {
	case n.kids == flameScanKids+1: // the list becomes too long: index it
		for k := n.firstKid; k >= 0; k = t.node(k).next {
			t.children[uint64(cur)<<32|uint64(uint32(t.node(k).name))] = k
		}
	case n.kids > flameScanKids+1:
		t.children[uint64(cur)<<32|uint64(uint32(name))] = c
	}
	if n.kids > flameScanKids {
		if err := t.budget.Charge(flameMapCost); err != nil {
			return 0, err
		}
	}
	return c, nil
}

// add walks every sample from the root (outermost frame) to the leaf. Samples
// in a row often share their outer frames (pprof writes a profile's samples in
// stack order): the nodes of the previous sample's path are reused as far as the
// frames agree, and only the rest is looked up.
func (t *flameTree) add(g *callGraph, si int, asBase bool) error {
	ids := make([]int32, len(g.names)) // graph node → tree name id
	for n, name := range g.names {
		ids[n] = t.nameID(name)
	}
	var stack, frames, prevFrames, path []int32
	for i := range g.samples() {
		v := g.value(i, si)
		if v == 0 {
			continue
		}
		stack = g.stack(i, stack)
		frames = frames[:0]
		for k := len(stack) - 1; k >= 0; k-- {
			lines := g.locs[stack[k]].lines
			for j := len(lines) - 1; j >= 0; j-- {
				frames = append(frames, ids[lines[j].node])
			}
		}
		same := 0
		for same < len(frames) && same < len(prevFrames) && frames[same] == prevFrames[same] {
			same++
		}
		path = path[:same]
		cur := int32(0)
		if same > 0 {
			cur = path[same-1]
		}
		for _, name := range frames[same:] {
			c, err := t.child(cur, name)
			if err != nil {
				return err
			}
			cur = c
			path = append(path, c)
		}
		t.bump(0, v, asBase)
		for _, n := range path {
			t.bump(n, v, asBase)
		}
		prevFrames, frames = frames, prevFrames
	}
	return nil
}

func (t *flameTree) bump(n int32, v int64, asBase bool) {
	if asBase {
		t.node(n).base += v
	} else {
		t.node(n).value += v
	}
}

// graph prunes the tree and converts it to FlameNodes: boxes are kept largest
// first (a box is never larger than its parent, so every kept box's parent is kept)
// until maxFlameNodes are kept or the next is narrower than minFraction of the total.
func (t *flameTree) graph(typ, unit string, minFraction float64, diff bool) FlameGraph {
	root := *t.node(0)
	fg := FlameGraph{SampleType: typ, Unit: unit, Total: root.value, Diff: diff, MinFraction: minFraction}
	if diff {
		fg.BaseTotal = root.base
	}
	size := func(i int32) int64 { return max(abs64(t.node(i).value), abs64(t.node(i).base)) }
	cutoff := int64(float64(size(0)) * minFraction)
	kept := make([]bool, t.size)
	kept[0] = true
	fg.Nodes = 1
	queue := &flameQueue{size: size}
	for c := t.node(0).firstKid; c >= 0; c = t.node(c).next {
		heap.Push(queue, c)
	}
	for queue.Len() > 0 && fg.Nodes < maxFlameNodes {
		i := heap.Pop(queue).(int32)
		if s := size(i); s < cutoff || s == 0 {
			break
		}
		kept[i] = true
		fg.Nodes++
		for c := t.node(i).firstKid; c >= 0; c = t.node(c).next {
			heap.Push(queue, c)
		}
	}
	var build func(i int32) *FlameNode
	build = func(i int32) *FlameNode {
		n := t.node(i)
		out := &FlameNode{Name: t.names[n.name], Value: n.value, Base: n.base}
		var kids []int32
		for c := n.firstKid; c >= 0; c = t.node(c).next {
			kids = append(kids, c)
		}
		sort.Slice(kids, func(a, b int) bool { return t.names[(*t.node(kids[a])).name] < t.names[(*t.node(kids[b])).name] })
		for _, c := range kids {
			if !kept[c] {
				fg.Dropped += t.count(c)
				fg.Hidden += abs64(t.node(c).value)
				continue
			}
			out.Children = append(out.Children, build(c))
		}
		return out
	}
	fg.Root = build(0)
	return fg
}

// maxFlameNodes caps the boxes of one flame graph whatever the profile.
const maxFlameNodes = 20000

// flameQueue is a max-heap of tree nodes by size.
type flameQueue struct {
	items []int32
	size  func(int32) int64
}

func (q *flameQueue) Len() int           { return len(q.items) }
func (q *flameQueue) Less(i, j int) bool { return q.size(q.items[i]) > q.size(q.items[j]) }
func (q *flameQueue) Swap(i, j int)      { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *flameQueue) Push(x any)         { q.items = append(q.items, x.(int32)) }
func (q *flameQueue) Pop() any {
	x := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return x
}

// count is the number of nodes in a subtree.
func (t *flameTree) count(i int32) int {
	n := 1
	for c := t.node(i).firstKid; c >= 0; c = t.node(c).next {
		n += t.count(c)
	}
	return n
}
