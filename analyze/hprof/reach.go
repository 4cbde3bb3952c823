package hprof

import (
	"slices"
)

// Reachability is how an object is reached from the GC roots.
type Reachability uint8

// The reachabilities, strongest first.
const (
	// Strong: a path of strong references from a GC root.
	Strong Reachability = iota
	// Weak: only through the referent of a SoftReference or a WeakReference
	// (a cache the GC may clear).
	Weak
	// PendingCleanup: only through the referent of a FinalReference (the
	// finalizer queue) or a PhantomReference (the Cleaner's queues): garbage
	// whose finalizer or cleaner has not run yet.
	PendingCleanup
	// Unreachable: no path at all: garbage not collected yet, which a dump
	// taken with `jcmd GC.heap_dump -all` keeps.
	Unreachable
)

// String names the reachability as the report does.
func (r Reachability) String() string {
	switch r {
	case Strong:
		return "strongly reachable"
	case Weak:
		return "only softly or weakly reachable"
	case PendingCleanup:
		return "reachable only from finalizer/cleaner queues"
	}
	return "unreachable"
}

// Reach is how object o is reached (after Analyze).
func (h *Heap) Reach(o uint32) Reachability {
	if h.reach == nil {
		if h.Reachable(o) {
			return Strong
		}
		return Unreachable
	}
	return h.reach[o]
}

// referentOf is the referent of Reference object o, ok false when o is none
// or has no referent.
func (h *Heap) referentOf(o uint32) (refRecord, bool) {
	i, ok := slices.BinarySearchFunc(h.weak, o, func(r refRecord, o uint32) int { return cmpUint32(r.ref, o) })
	if !ok {
		return refRecord{}, false
	}
	return h.weak[i], true
}

// reachability marks every object by how it is reached: strongly (the
// dominator tree's nodes), then through soft and weak references only, then
// through finalizer and cleaner queues only, each by a search from the
// referents of the references reached before, over strong references and
// the referents of the references it meets; the rest is unreachable.
func (h *Heap) reachability() ([]Reachability, error) {
	n := uint32(len(h.ids))
	rs := &h.rs
	reach, err := makeArray[Reachability](rs, int(n), held, "the reachability of the objects")
	if err != nil {
		return nil, err
	}
	q := scan(rs, h.idom)
	for o, d := range h.idom {
		if d == noObject {
			reach[o] = Unreachable
		}
		if o&cancelCheckMask == 0 {
			q.at(o)
		}
	}
	q.end()
	if len(h.weak) == 0 {
		release(rs, reach)
		return reach, nil
	}
	for _, err := range []error{hold(rs, h.weak), hold(rs, h.out.offsets), hold(rs, h.out.targets)} {
		if err != nil {
			return nil, err
		}
	}
	defer func() {
		release(rs, h.weak)
		release(rs, h.out.offsets)
		release(rs, h.out.targets)
	}()
	stack, err := newDeepStack[uint32](rs, int(n), "the search of the weakly reachable")
	if err != nil {
		return nil, err
	}
	defer stack.free()
	follows := func(k RefKind, level Reachability) bool {
		return level == PendingCleanup || k == RefSoft || k == RefWeak
	}
	visited := 0
	for _, level := range []Reachability{Weak, PendingCleanup} {
		for _, r := range h.weak {
			if reach[r.ref] <= level && reach[r.referent] == Unreachable && follows(r.kind, level) {
				reach[r.referent] = level
				if err := stack.push(r.referent); err != nil {
					return nil, err
				}
			}
		}
		for len(stack.g.s) > 0 {
			o := stack.g.s[len(stack.g.s)-1]
			stack.pop()
			if visited++; visited&cancelCheckMask == 0 {
				if err := h.stopped(); err != nil {
					return nil, err
				}
			}
			for _, t := range h.out.row(o) {
				if reach[t] == Unreachable {
					reach[t] = level
					if err := stack.push(t); err != nil {
						return nil, err
					}
				}
			}
			if r, ok := h.referentOf(o); ok && reach[r.referent] == Unreachable && follows(r.kind, level) {
				reach[r.referent] = level
				if err := stack.push(r.referent); err != nil {
					return nil, err
				}
			}
		}
	}
	release(rs, reach)
	return reach, nil
}
