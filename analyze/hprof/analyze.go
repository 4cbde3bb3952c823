package hprof

import (
	"errors"
	"slices"
	"sync/atomic"
	"unsafe"
)

// Analyze computes the dominator tree, the retained size of every object and the
// shortest paths from the GC roots. It is idempotent. It fails only when
// Options.Budget refuses the memory it needs (ErrTooLarge or ErrBusy), or the
// disk the room for its temporary files, or Options.Context is done, and then
// leaves the heap as it was.
func (h *Heap) Analyze(progress func(string, float64)) (err error) {
	if h.analyzed {
		return nil
	}
	if h.rs.mem == nil { // a Heap made by hand, in tests
		h.rs.mem = &h.mem
	}
	defer h.setCall(progress)()
	charged := h.mem.used
	had := h.rs.snapshot()
	defer func() {
		if !h.analyzed { // an error, or a panic unwinding the analysis
			h.rs.rollback(had)
			h.idom, h.retained, h.domKids, h.bfs, h.depth, h.top, h.reach = nil, nil, csr{}, nil, nil, nil, nil
			h.pathDepth, h.pathRoot, h.classStats = nil, nil, nil
			h.mem.uncharge(h.mem.used - charged)
		}
	}()
	n := uint32(len(h.ids))
	rs := &h.rs
	if err := h.report(stageDominators, 0, 0); err != nil {
		return err
	}
	// The shortest paths from the GC roots need only the references: their
	// search runs on a second core while the dominators are computed.
	search, err := h.startShortestPaths()
	if err != nil {
		return err
	}
	defer search.wait(true) // before the rollback above, which unmaps what it uses
	idom, vertex, count, err := h.dominators(search)
	if err != nil {
		return err
	}
	h.idom = idom
	if err := h.report(stageRetained, 0, 0); err != nil {
		return err
	}

	// Retained sizes: every object adds its own to its dominators', children first
	// (a dominator precedes what it dominates in the depth-first order).
	retained, err := makeArray[uint64](rs, int(n)+1, held, "the retained sizes")
	if err != nil {
		return err
	}
	h.retained = retained
	if err := hold(rs, h.size); err != nil {
		return err
	}
	qv := scan(rs, vertex)
	for k := count; k >= 2; k-- {
		o := vertex[k]
		retained[o] += uint64(h.ShallowSize(o))
		retained[idom[o]] += retained[o]
		if k&cancelCheckMask == 0 {
			qv.back(int(k))
			if err := h.report(stageRetained, 0.4*float64(count-k)/float64(count), 0); err != nil {
				return err
			}
		}
	}
	qv.end()
	release(rs, h.size)
	release(rs, idom)

	// The dominator tree's children, largest first: counted by dominator,
	// summed, filled (which moves each row's offset to its end) and shifted
	// back.
	offsets, err := makeArray[uint32](rs, int(n)+2, held, "the dominator tree")
	if err != nil {
		return err
	}
	h.domKids.offsets = offsets
	reached := 0
	qi := scan(rs, idom)
	for o, d := range idom {
		if d != noObject {
			offsets[d+1]++
			reached++
		}
		if o&cancelCheckMask == 0 {
			qi.at(o)
		}
	}
	qi.end()
	for i := uint32(1); i <= n+1; i++ {
		offsets[i] += offsets[i-1]
	}
	kids, err := makeArray[uint32](rs, reached, held, "the dominator tree")
	if err != nil {
		return err
	}
	h.domKids.targets = kids
	for o, d := range idom {
		if d != noObject {
			kids[offsets[d]] = uint32(o)
			offsets[d]++
		}
		if o&cancelCheckMask == 0 {
			qi.at(o)
		}
	}
	qi.end()
	copy(offsets[1:], offsets[:n+1])
	offsets[0] = 0
	if err := h.report(stageRetained, 0.6, 0); err != nil {
		return err
	}
	if err := h.sortRows(h.domKids, func(a, b uint32) int {
		switch {
		case retained[a] > retained[b]:
			return -1
		case retained[a] < retained[b]:
			return 1
		}
		return int(a) - int(b)
	}); err != nil {
		return err
	}
	release(rs, kids)
	release(rs, offsets)
	release(rs, retained)
	if err := hold(rs, idom); err != nil {
		return err
	}

	// Each object's depth in the dominator tree and the top-level object above
	// it, for the index, in depth-first order: a dominator is numbered before
	// what it dominates.
	if err := h.report(stageRetained, 0.8, 0); err != nil {
		return err
	}
	if h.depth, err = makeArray[uint32](rs, int(n), held, "the depths of the dominator tree"); err != nil {
		return err
	}
	if h.top, err = makeArray[uint32](rs, int(n), held, "the depths of the dominator tree"); err != nil {
		return err
	}
	for o := range h.top {
		h.top[o] = noObject
	}
	qv = scan(rs, vertex)
	for k := uint32(2); k <= count; k++ {
		o := vertex[k]
		if d := idom[o]; d == n {
			h.depth[o], h.top[o] = 1, o
		} else {
			h.depth[o], h.top[o] = h.depth[d]+1, h.top[d]
		}
		if k&cancelCheckMask == 0 {
			qv.at(int(k))
		}
	}
	qv.end()
	release(rs, h.depth)
	release(rs, h.top)
	release(rs, idom)

	if err := h.report(stagePaths, 0, 0); err != nil {
		return err
	}
	free(rs, vertex)
	if err := search.wait(false); err != nil {
		return err
	}
	h.bfs, h.reached = search.parent, search.reached
	if err := h.pathDepths(search.queue); err != nil {
		return err
	}
	free(rs, search.queue)
	if err := h.report(stagePaths, 0.9, 0); err != nil {
		return err
	}
	if h.reach, err = h.reachability(); err != nil {
		return err
	}
	if err := h.countClasses(); err != nil {
		return err
	}
	h.analyzed = true
	return nil
}

// classStat is what the objects of one class number hold: their count and
// shallow size by reachability, and what they retain together (once
// NewReport's histogram ran, else -1).
type classStat struct {
	reach    [4]NativeCount
	retained int64
}

// countClasses counts the objects of each class by how they are reached.
func (h *Heap) countClasses() error {
	rs := &h.rs
	if err := h.mem.charge(int64(len(h.Classes))*int64(unsafe.Sizeof(classStat{})), "the classes' counts"); err != nil {
		return err
	}
	h.classStats = make([]classStat, len(h.Classes))
	for i := range h.classStats {
		h.classStats[i].retained = -1
	}
	qc, qs, qr := scan(rs, h.class), scan(rs, h.size), scan(rs, h.reach)
	for o, cn := range h.class {
		c := &h.classStats[cn].reach[h.Reach(uint32(o))]
		c.Count++
		c.Bytes += h.ShallowSize(uint32(o))
		if o&cancelCheckMask == 0 {
			qc.at(o)
			qs.at(o)
			qr.at(o)
			if err := h.stopped(); err != nil {
				return err
			}
		}
	}
	qc.end()
	qs.end()
	qr.end()
	return nil
}

// setCall makes progress the running call's progress function until the
// returned function restores the one before.
func (h *Heap) setCall(progress func(string, float64)) func() {
	before := h.prog.call
	if progress != nil {
		h.prog.call = progress
	}
	return func() { h.prog.call = before }
}

// pathSearch is the breadth-first search of the shortest paths from the GC
// roots, running on a goroutine of its own beside the dominators (both only
// read the references). It maps, holds and pins what it uses before it starts,
// reports no progress and touches no region but through what it was given;
// wait joins it and gives everything back on the caller's goroutine.
type pathSearch struct {
	h       *Heap
	parent  []uint32 // each object's parent, len(ids) for a root, noObject unreached
	queue   []uint32 // the objects in breadth-first order, reached of them
	reached int
	stop    atomic.Bool
	done    chan struct{}
	joined  bool
	err     error
	panic   any
}

// startShortestPaths starts the breadth-first search from the virtual root
// over the strong references: each object's parent on a shortest path from a
// GC root (len(ids) for a root, noObject for the unreachable) and the order it
// was reached in (the queue, which pathDepths goes through).
func (h *Heap) startShortestPaths() (*pathSearch, error) {
	n := uint32(len(h.ids))
	rs := &h.rs
	ps := &pathSearch{h: h, done: make(chan struct{})}
	var err error
	if ps.parent, err = makeArray[uint32](rs, int(n), held, "the paths from the GC roots"); err != nil {
		return nil, err
	}
	if ps.queue, err = makeArray[uint32](rs, int(n), streamed, "the breadth-first order"); err != nil {
		return nil, err
	}
	if err := pin(rs, h.out.offsets); err != nil {
		return nil, err
	}
	if err := pin(rs, h.out.targets); err != nil {
		unpin(rs, h.out.offsets)
		return nil, err
	}
	roots := h.rootTargets()
	qr, qw := scan(rs, ps.queue), scan(rs, ps.queue)
	go func() {
		defer close(ps.done)
		defer func() {
			if v := recover(); v != nil {
				ps.panic = v
			}
		}()
		ps.err = ps.run(roots, &qr, &qw)
	}()
	return ps, nil
}

// run is the search itself, on its own goroutine.
func (ps *pathSearch) run(roots []uint32, qr, qw *sequence) error {
	h := ps.h
	n := uint32(len(h.ids))
	parent, queue := ps.parent, ps.queue
	for i := range parent {
		parent[i] = noObject
	}
	tail := 0
	for _, o := range roots {
		if parent[o] == noObject {
			parent[o] = n
			queue[tail] = o
			tail++
		}
	}
	for i := 0; i < tail; i++ {
		if i&cancelCheckMask == 0 {
			qr.at(i)
			if ps.stop.Load() {
				return errSearchStopped
			}
			if err := h.stopped(); err != nil {
				return err
			}
		}
		o := queue[i]
		for _, t := range h.out.row(o) {
			if parent[t] == noObject {
				parent[t] = o
				queue[tail] = t
				tail++
				if tail&cancelCheckMask == 0 {
					qw.at(tail) // written pages behind the writer are read again later: kept in the file
				}
			}
		}
	}
	qr.end()
	ps.reached = tail
	return nil
}

// errSearchStopped ends a search whose analysis failed elsewhere.
var errSearchStopped = errors.New("hprof: the search was stopped")

// wait joins the search and releases what it held (idempotent); with stop, it
// first tells the search to end.
func (ps *pathSearch) wait(stop bool) error {
	if ps.joined {
		return ps.err
	}
	if stop {
		ps.stop.Store(true)
	}
	<-ps.done
	ps.joined = true
	rs := &ps.h.rs
	unpin(rs, ps.h.out.offsets)
	unpin(rs, ps.h.out.targets)
	release(rs, ps.parent)
	if ps.panic != nil {
		panic(ps.panic)
	}
	return ps.err
}

// pathDepths works out each object's number of steps from a GC root on its
// shortest path and the root it starts at, for the index, going through the
// breadth-first order (queue, as shortestPaths left it): a parent before its
// children.
func (h *Heap) pathDepths(queue []uint32) error {
	n := uint32(len(h.ids))
	rs := &h.rs
	var err error
	if h.pathDepth, err = makeArray[uint32](rs, int(n), held, "the lengths of the paths"); err != nil {
		return err
	}
	if h.pathRoot, err = makeArray[uint32](rs, int(n), held, "the roots of the paths"); err != nil {
		return err
	}
	for o := range h.pathRoot {
		h.pathRoot[o] = noObject
	}
	if err := hold(rs, h.bfs); err != nil {
		return err
	}
	q := scan(rs, queue)
	for i, o := range queue[:h.reached] {
		if p := h.bfs[o]; p == n {
			h.pathDepth[o], h.pathRoot[o] = 1, o
		} else {
			h.pathDepth[o], h.pathRoot[o] = h.pathDepth[p]+1, h.pathRoot[p]
		}
		if i&cancelCheckMask == 0 {
			q.at(i)
			if err := h.report(stagePaths, 0.7+0.2*float64(i)/float64(max(h.reached, 1)), 0); err != nil {
				return err
			}
		}
	}
	q.end()
	release(rs, h.bfs)
	release(rs, h.pathDepth)
	release(rs, h.pathRoot)
	return nil
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
