package hprof

import (
	"slices"
)

// Analyze computes the dominator tree, the retained size of every object and the
// shortest paths from the GC roots. It is idempotent. It fails only when
// Options.Budget refuses the memory it needs (ErrTooLarge or ErrBusy), and then
// leaves the heap as it was.
func (h *Heap) Analyze(progress func(string, float64)) (err error) {
	if h.analyzed {
		return nil
	}
	if progress == nil {
		progress = func(string, float64) {}
	}
	held := h.mem.used
	defer func() {
		if !h.analyzed { // an error, or a panic unwinding the analysis
			h.idom, h.retained, h.domKids, h.bfs = nil, nil, csr{}, nil
			h.mem.uncharge(h.mem.used - held)
		}
	}()
	n := uint32(len(h.ids))
	progress("dominators", 0)
	if err := h.stopped(); err != nil {
		return err
	}
	idom, order, err := h.dominators(progress)
	if err != nil {
		return err
	}
	progress("retained", 0)
	if err := h.stopped(); err != nil {
		return err
	}

	// Retained sizes: every object adds its own to its dominators', children first
	// (a dominator precedes what it dominates in the DFS order).
	if err := h.mem.charge(8*int64(n+1), "the retained sizes"); err != nil {
		return err
	}
	retained := make([]uint64, n+1)
	for k := len(order) - 1; k >= 2; k-- {
		o := order[k]
		retained[o] += uint64(h.ShallowSize(o))
		retained[idom[o]] += retained[o]
	}
	h.mem.uncharge(4 * int64(cap(order)))
	order = nil

	// The dominator tree's children, largest first.
	reached := 0
	for _, d := range idom {
		if d != noObject {
			reached++
		}
	}
	if err := h.mem.charge(4*int64(n+2)+4*int64(reached)+4*int64(n+1), "the dominator tree"); err != nil {
		return err
	}
	offsets := make([]uint32, n+2)
	for _, d := range idom {
		if d != noObject {
			offsets[d+1]++
		}
	}
	for i := uint32(1); i <= n+1; i++ {
		offsets[i] += offsets[i-1]
	}
	kids := make([]uint32, offsets[n+1])
	fill := make([]uint32, n+1)
	copy(fill, offsets[:n+1])
	for o, d := range idom {
		if d != noObject {
			kids[fill[d]] = uint32(o)
			fill[d]++
		}
	}
	fill = nil
	h.mem.uncharge(4 * int64(n+1))
	for p := uint32(0); p <= n; p++ {
		row := kids[offsets[p]:offsets[p+1]]
		if len(row) > 1 {
			slices.SortFunc(row, func(a, b uint32) int {
				switch {
				case retained[a] > retained[b]:
					return -1
				case retained[a] < retained[b]:
					return 1
				}
				return int(a) - int(b)
			})
		}
	}
	h.idom, h.retained, h.domKids = idom, retained, csr{offsets: offsets, targets: kids}
	progress("paths", 0)
	if err := h.stopped(); err != nil {
		return err
	}
	if h.bfs, err = h.shortestPaths(reached); err != nil {
		return err
	}
	h.analyzed = true
	return nil
}

// shortestPaths runs a breadth-first search from the virtual root over the strong
// references and returns each object's parent on a shortest path from a GC root
// (len(ids) for a root, noObject for the unreachable).
func (h *Heap) shortestPaths(reached int) ([]uint32, error) {
	n := uint32(len(h.ids))
	if err := h.mem.charge(4*int64(n)+4*int64(reached), "the paths from the GC roots"); err != nil {
		return nil, err
	}
	defer h.mem.uncharge(4 * int64(reached))
	parent := make([]uint32, n)
	for i := range parent {
		parent[i] = noObject
	}
	queue := make([]uint32, 0, reached)
	for _, o := range h.rootTargets() {
		if parent[o] == noObject {
			parent[o] = n
			queue = append(queue, o)
		}
	}
	for i := 0; i < len(queue); i++ {
		if i&cancelCheckMask == 0 {
			if err := h.stopped(); err != nil {
				return nil, err
			}
		}
		o := queue[i]
		for _, t := range h.out.row(o) {
			if parent[t] == noObject {
				parent[t] = o
				queue = append(queue, t)
			}
		}
	}
	return parent, nil
}

// Retained is the retained size of object o: the bytes freed if it were freed,
// 0 for an object no strong path from a GC root reaches. Analyze must have run.
func (h *Heap) Retained(o uint32) int64 { return int64(h.retained[o]) }

// TotalRetained is the size of every object reachable from the GC roots.
func (h *Heap) TotalRetained() int64 { return int64(h.retained[len(h.ids)]) }

// Dominator is the immediate dominator of o; ok is false when o is a top-level
// object (dominated by the GC roots only) or unreachable (Reachable tells).
func (h *Heap) Dominator(o uint32) (d uint32, ok bool) {
	d = h.idom[o]
	return d, d != noObject && d != uint32(len(h.ids))
}

// Reachable tells whether a strong path from a GC root reaches o.
func (h *Heap) Reachable(o uint32) bool { return h.idom[o] != noObject }

// Dominated are the objects o immediately dominates, largest retained first; with
// top set, the top-level objects (those the GC roots dominate together).
func (h *Heap) Dominated(o uint32, top bool) []uint32 {
	if top {
		return h.domKids.row(uint32(len(h.ids)))
	}
	return h.domKids.row(o)
}

// PathToRoot is a shortest chain of strong references from a GC root to o: the root
// first and o last; nil when o is unreachable.
func (h *Heap) PathToRoot(o uint32) []uint32 {
	if h.bfs[o] == noObject {
		return nil
	}
	n := uint32(len(h.ids))
	var path []uint32
	for x := o; x != n; x = h.bfs[x] {
		path = append(path, x)
	}
	slices.Reverse(path)
	return path
}
