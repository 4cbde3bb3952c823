package hprof

import "slices"

// dominators computes the immediate dominator of every object reachable from the
// GC roots, with a virtual root (ordinal n = len(ids)) whose references are the
// roots, by the semi-NCA algorithm (Georgiadis, "Linear-Time Algorithms for
// Dominators and Related Problems", 2005), iteratively: a depth-first numbering
// with an explicit stack, semidominators through path-compressed evaluation, and
// immediate dominators by walking up the spanning tree, as LLVM's
// GenericDomTreeConstruction.h (runDFS, runSemiNCA, eval) does it. It returns the
// immediate dominator of every ordinal (n for the virtual root, noObject for the
// unreachable) and the DFS order (ordinals by DFS number from 1; 0 is unused). It
// charges its arrays to the heap's meter, and gives back all but those two.
func (h *Heap) dominators(progress func(string, float64)) (idom []uint32, order []uint32, err error) {
	n := uint32(len(h.ids))
	m := &h.mem
	scratch := int64(0) // charged here, given back at the end
	charge := func(bytes int64, what string) error {
		if err := m.charge(bytes, what); err != nil {
			return err
		}
		scratch += bytes
		return nil
	}
	defer func() { m.uncharge(scratch) }()
	if err := charge(mapEntry*int64(len(h.Roots)), "the GC roots"); err != nil {
		return nil, nil, err
	}
	rootTargets := h.rootTargets()
	succ := func(o uint32) []uint32 {
		if o == n {
			return rootTargets
		}
		return h.out.row(o)
	}

	// Depth-first numbering from the virtual root: num[o] is o's number (1 for the
	// root, 0 for unreached), vertex[k] the ordinal numbered k, parent[k] the number of
	// its spanning-tree parent.
	if err := charge(4*int64(n+1)+4*int64(n+2), "the depth-first numbering"); err != nil {
		return nil, nil, err
	}
	if err := m.charge(4*int64(n+2), "the depth-first order"); err != nil { // order, kept
		return nil, nil, err
	}
	num := make([]uint32, n+1)
	vertex := make([]uint32, 1, n+2)
	parent := make([]uint32, 1, n+2)
	type frame struct{ o, next uint32 }
	const frameSize = 8
	if err := charge(frameSize*1024, "the depth-first search"); err != nil {
		return nil, nil, err
	}
	stack := make([]frame, 1, 1024)
	stack[0] = frame{o: n}
	vertex = append(vertex, n)
	parent = append(parent, 0)
	num[n] = 1
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		row := succ(top.o)
		if int(top.next) >= len(row) {
			stack = stack[:len(stack)-1]
			continue
		}
		t := row[top.next]
		top.next++
		if num[t] != 0 {
			continue
		}
		num[t] = uint32(len(vertex))
		if len(vertex)&cancelCheckMask == 0 {
			if err := h.stopped(); err != nil {
				return nil, nil, err
			}
		}
		parent = append(parent, num[top.o])
		vertex = append(vertex, t)
		if len(stack) == cap(stack) {
			if err := charge(frameSize*int64(cap(stack)), "the depth-first search"); err != nil {
				return nil, nil, err
			}
			stack = slices.Grow(stack, cap(stack))
		}
		stack = append(stack, frame{o: t})
	}
	stack = nil
	count := uint32(len(vertex) - 1) // reached vertices, numbered 1..count
	progress("dominators", 0.2)
	if err := h.stopped(); err != nil {
		return nil, nil, err
	}

	// What the rest needs is known: charge it all now, so that a heap too big fails
	// before the longest part.
	if err := charge(4*int64(n+1)+4*int64(len(h.out.targets))+4*int64(n)+int64(n), "the referrers"); err != nil {
		return nil, nil, err
	}
	if err := charge(12*int64(count+1)+4*1024, "the semidominators"); err != nil {
		return nil, nil, err
	}
	if err := m.charge(4*int64(n), "the immediate dominators"); err != nil { // kept
		return nil, nil, err
	}

	// Referrers of every object (the virtual root refers to each root, which
	// isRoot marks), only while the semidominators are computed.
	in := h.out.reverse(int(n))
	isRoot := make([]bool, n)
	for _, o := range rootTargets {
		isRoot[o] = true
	}
	progress("dominators", 0.4)
	if err := h.stopped(); err != nil {
		return nil, nil, err
	}

	semi := make([]uint32, count+1)
	label := make([]uint32, count+1)
	dom := make([]uint32, count+1)
	for k := uint32(1); k <= count; k++ {
		semi[k], label[k], dom[k] = k, k, parent[k]
	}
	anc := parent // reused as the path-compressed forest's ancestor links
	path := make([]uint32, 0, 1024)
	var refused error // a growth of path the budget refused
	eval := func(v, lastLinked uint32) uint32 {
		if anc[v] < lastLinked {
			return label[v]
		}
		path = path[:0]
		for {
			if len(path) == cap(path) {
				if refused = charge(4*int64(cap(path)), "the path compression"); refused != nil {
					return 0
				}
				path = slices.Grow(path, cap(path))
			}
			path = append(path, v)
			v = anc[v]
			if anc[v] < lastLinked {
				break
			}
		}
		p := v
		pLabel := label[p]
		for i := len(path) - 1; i >= 0; i-- {
			w := path[i]
			anc[w] = anc[p]
			if semi[pLabel] < semi[label[w]] {
				label[w] = pLabel
			} else {
				pLabel = label[w]
			}
			p = w
		}
		return label[p]
	}
	for k := count; k >= 2; k-- {
		s := dom[k] // the spanning-tree parent
		o := vertex[k]
		if o != n && isRoot[o] {
			s = 1
		}
		for _, pred := range in.row(o) {
			j := num[pred]
			if j == 0 {
				continue
			}
			if u := semi[eval(j, k+1)]; u < s {
				s = u
			}
			if refused != nil {
				return nil, nil, refused
			}
		}
		semi[k] = s
		if k&(1<<20-1) == 0 {
			progress("dominators", 0.4+0.4*float64(count-k)/float64(count))
		}
		if k&cancelCheckMask == 0 {
			if err := h.stopped(); err != nil {
				return nil, nil, err
			}
		}
	}
	label, isRoot, in, num, anc, parent, path = nil, nil, csr{}, nil, nil, nil, nil
	for k := uint32(2); k <= count; k++ {
		c := dom[k]
		for c > semi[k] {
			c = dom[c]
		}
		dom[k] = c
	}
	idom = make([]uint32, n)
	for o := range idom {
		idom[o] = noObject
	}
	for k := uint32(2); k <= count; k++ {
		idom[vertex[k]] = vertex[dom[k]]
	}
	return idom, vertex, nil
}

// rootTargets are the ordinals of the GC roots, each once, in the dump's order.
func (h *Heap) rootTargets() []uint32 {
	seen := map[uint32]bool{}
	var out []uint32
	for _, r := range h.Roots {
		if !seen[r.Ordinal] {
			seen[r.Ordinal] = true
			out = append(out, r.Ordinal)
		}
	}
	return out
}
