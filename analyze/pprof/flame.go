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
	t := newFlameTree()
	t.add(p.graph, sampleIndex, false)
	st := p.meta.sampleTypes[sampleIndex]
	return t.graph(st.typ, st.unit, minFraction, false)
}

// DiffFlame builds a differential flame graph: box widths are the target's values,
// and every box also carries the base's value at the same position, for colouring
// by growth.
func DiffFlame(base, target *Profile, sampleIndex int, minFraction float64) (FlameGraph, error) {
	if !base.SameType(target) {
		return FlameGraph{}, fmt.Errorf("%w: the base measures %s and the target %s", analyze.ErrMismatch, base.TypeNames(), target.TypeNames())
	}
	t := newFlameTree()
	t.add(target.graph, sampleIndex, false)
	t.add(base.graph, sampleIndex, true)
	st := target.meta.sampleTypes[sampleIndex]
	return t.graph(st.typ, st.unit, minFraction, true), nil
}

// flameTree accumulates stacks into a tree keyed by function name. Children are
// found through one map keyed by (parent, name id), which is much cheaper than a
// map of strings per node.
type flameTree struct {
	nodes    []flameTreeNode
	children map[uint64]int32 // parent<<32 | name id → child
	names    []string         // name id → name
	nameIDs  map[string]int32
}

type flameTreeNode struct {
	name        int32
	value, base int64
	kids        []int32
}

func newFlameTree() *flameTree {
	t := &flameTree{children: make(map[uint64]int32), nameIDs: make(map[string]int32)}
	t.nodes = []flameTreeNode{{name: t.nameID("root")}}
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

// add walks every sample from the root (outermost frame) to the leaf.
func (t *flameTree) add(g *callGraph, si int, asBase bool) {
	ids := make([]int32, len(g.names)) // graph node → tree name id
	for n, name := range g.names {
		ids[n] = t.nameID(name)
	}
	var stack []int32
	for i := range g.samples() {
		v := g.value(i, si)
		if v == 0 {
			continue
		}
		stack = g.stack(i, stack)
		cur := int32(0)
		t.bump(cur, v, asBase)
		for k := len(stack) - 1; k >= 0; k-- {
			lines := g.locs[stack[k]].lines
			for j := len(lines) - 1; j >= 0; j-- {
				name := ids[lines[j].node]
				key := uint64(cur)<<32 | uint64(uint32(name))
				child, ok := t.children[key]
				if !ok {
					child = int32(len(t.nodes))
					t.nodes = append(t.nodes, flameTreeNode{name: name})
					t.nodes[cur].kids = append(t.nodes[cur].kids, child)
					t.children[key] = child
				}
				cur = child
				t.bump(cur, v, asBase)
			}
		}
	}
}

func (t *flameTree) bump(n int32, v int64, asBase bool) {
	if asBase {
		t.nodes[n].base += v
	} else {
		t.nodes[n].value += v
	}
}

// graph prunes the tree and converts it to FlameNodes: boxes are kept largest
// first (a box is never larger than its parent, so every kept box's parent is kept)
// until maxFlameNodes are kept or the next is narrower than minFraction of the total.
func (t *flameTree) graph(typ, unit string, minFraction float64, diff bool) FlameGraph {
	root := t.nodes[0]
	fg := FlameGraph{SampleType: typ, Unit: unit, Total: root.value, Diff: diff, MinFraction: minFraction}
	if diff {
		fg.BaseTotal = root.base
	}
	size := func(i int32) int64 { return max(abs64(t.nodes[i].value), abs64(t.nodes[i].base)) }
	cutoff := int64(float64(size(0)) * minFraction)
	kept := make([]bool, len(t.nodes))
	kept[0] = true
	fg.Nodes = 1
	queue := &flameQueue{size: size}
	for _, c := range t.nodes[0].kids {
		heap.Push(queue, c)
	}
	for queue.Len() > 0 && fg.Nodes < maxFlameNodes {
		i := heap.Pop(queue).(int32)
		if s := size(i); s < cutoff || s == 0 {
			break
		}
		kept[i] = true
		fg.Nodes++
		for _, c := range t.nodes[i].kids {
			heap.Push(queue, c)
		}
	}
	var build func(i int32) *FlameNode
	build = func(i int32) *FlameNode {
		n := &t.nodes[i]
		out := &FlameNode{Name: t.names[n.name], Value: n.value, Base: n.base}
		kids := append([]int32(nil), n.kids...)
		sort.Slice(kids, func(a, b int) bool { return t.names[t.nodes[kids[a]].name] < t.names[t.nodes[kids[b]].name] })
		for _, c := range kids {
			if !kept[c] {
				fg.Dropped += t.count(c)
				fg.Hidden += abs64(t.nodes[c].value)
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
	for _, c := range t.nodes[i].kids {
		n += t.count(c)
	}
	return n
}
