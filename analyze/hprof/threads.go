package hprof

// stackRoot reports whether a GC root of kind k is a slot of a thread's stack
// (a Java local, a JNI local, a native stack slot or a thread block).
func stackRoot(k RootKind) bool {
	switch k {
	case RootJavaFrame, RootJNILocal, RootNativeStack, RootThreadBlock:
		return true
	}
	return false
}

// localsAlone is what each thread keeps alive by itself through the locals of
// its stack, by thread object: the retained size of every top-level object of
// the dominator tree that only that thread's stack roots and that no object
// outside its own dominator subtree references. The dump roots a local at the
// virtual root rather than at its thread, so the thread object's own retained
// size leaves it out; Eclipse MAT counts it, as a reference from the thread to
// its local. It is nil when no thread holds anything alone, or when the budget
// has no room for the pass over the references it needs.
func (h *Heap) localsAlone() (map[uint32]int64, error) {
	n := uint32(len(h.ids))
	if h.idom == nil || h.top == nil {
		return nil, nil
	}
	// Each candidate's one thread, noObject once a second root holds it.
	owner := map[uint32]uint32{}
	for _, r := range h.Roots {
		x := r.Ordinal
		if x >= n || h.idom[x] != n {
			continue
		}
		t := noObject
		if stackRoot(r.Kind) {
			if o, ok := h.threadObjs[r.Thread]; ok && o != x {
				t = o
			}
		}
		if prev, seen := owner[x]; seen && prev != t {
			t = noObject
		}
		if _, seen := owner[x]; !seen {
			h.mem.chargeSmall(mapEntry, "the threads' locals")
		}
		owner[x] = t
	}
	candidates := 0
	for x, t := range owner {
		if t == noObject {
			delete(owner, x)
		} else {
			candidates++
		}
	}
	if candidates == 0 {
		return nil, h.mem.flush()
	}
	if err := h.mem.flush(); err != nil {
		return nil, err
	}
	words := int64(n+63) / 64
	if err := h.mem.charge(8*words, "the threads' locals"); err != nil {
		return nil, nil // the thread rows keep the thread objects' own sizes
	}
	defer h.mem.uncharge(8 * words)
	bits := make([]uint64, words)
	for x := range owner {
		bits[x/64] |= 1 << (x % 64)
	}
	rs := &h.rs
	for _, err := range []error{hold(rs, h.out.offsets), hold(rs, h.out.targets), hold(rs, h.top)} {
		if err != nil {
			release(rs, h.out.offsets)
			release(rs, h.out.targets)
			release(rs, h.top)
			return nil, nil
		}
	}
	defer func() {
		release(rs, h.out.offsets)
		release(rs, h.out.targets)
		release(rs, h.top)
	}()
	// A candidate that an object outside its subtree references is not its
	// thread's alone.
	for o := range n {
		if o&cancelCheckMask == 0 {
			if err := h.stopped(); err != nil {
				return nil, err
			}
		}
		top := h.top[o]
		if top == noObject {
			continue // not strongly reachable
		}
		for _, x := range h.out.row(o) {
			if bits[x/64]&(1<<(x%64)) != 0 && top != x {
				bits[x/64] &^= 1 << (x % 64)
				delete(owner, x)
			}
		}
	}
	if len(owner) == 0 {
		return nil, nil
	}
	alone := map[uint32]int64{}
	for x, t := range owner {
		alone[t] += h.Retained(x)
	}
	return alone, nil
}
