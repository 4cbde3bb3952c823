package hprof

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"unsafe"
)

// asBytes is the memory of s as bytes.
func asBytes[T any](s []T) []byte {
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)))
}

// partitionSpan is how many depth-first numbers the referrers of one partition
// cover: the semidominators read one partition at a time.
var partitionSpan = 1 << 20

// dominators computes the immediate dominator of every object reachable from the
// GC roots, with a virtual root (ordinal n = len(ids)) whose references are the
// roots, by the semi-NCA algorithm (Georgiadis, "Linear-Time Algorithms for
// Dominators and Related Problems", 2005), iteratively: a depth-first numbering
// with an explicit stack, semidominators through path-compressed evaluation, and
// immediate dominators by walking up the spanning tree, as LLVM's
// GenericDomTreeConstruction.h (runDFS, runSemiNCA, eval) does it.
//
// The semidominators go through the vertices in decreasing depth-first number
// and read each one's referrers. So the referrers are not a second graph held
// in memory: they are written, numbered depth first, to partition files by
// their target's number, and read back one partition (partitionSpan numbers)
// at a time, last first. What the semidominators hold at once is four numbers
// a reached object (semi, label, ancestor, dominator) and one partition.
//
// A search of the shortest paths started beside it (search, if not nil) is
// joined once the references are no longer needed.
//
// It returns the immediate dominator of every ordinal (n for the virtual root,
// noObject for the unreachable), held, and the depth-first order (ordinals by
// depth-first number from 1, the virtual root first; 0 is unused), released,
// with count, the number of reached vertices (the virtual root included). What
// it maps besides is freed before it returns; on an error, the caller frees
// what it returned (Analyze frees every region it made).
func (h *Heap) dominators(search *pathSearch) (idom, vertex []uint32, count uint32, err error) {
	n := uint32(len(h.ids))
	rs := &h.rs
	if err := h.mem.charge(mapEntry*int64(len(h.Roots)), "the GC roots"); err != nil {
		return nil, nil, 0, err
	}
	defer h.mem.uncharge(mapEntry * int64(len(h.Roots)))
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
	if err := hold(rs, h.out.offsets); err != nil {
		return nil, nil, 0, err
	}
	if err := hold(rs, h.out.targets); err != nil {
		return nil, nil, 0, err
	}
	num, err := makeArray[uint32](rs, int(n)+1, scratch, "the depth-first numbering")
	if err != nil {
		return nil, nil, 0, err
	}
	defer func() { free(rs, num) }()
	if vertex, err = makeArray[uint32](rs, int(n)+2, streamed, "the depth-first order"); err != nil {
		return nil, nil, 0, err
	}
	parent, err := makeArray[uint32](rs, int(n)+2, streamed, "the depth-first tree")
	if err != nil {
		return nil, nil, 0, err
	}
	defer func() { free(rs, parent) }()
	stack, err := newDeepStack[dfsFrame](rs, int(n)+2, "the depth-first search")
	if err != nil {
		return nil, nil, 0, err
	}
	defer stack.free()
	if err := stack.push(dfsFrame{o: n}); err != nil {
		return nil, nil, 0, err
	}
	qv, qp := scan(rs, vertex), scan(rs, parent)
	vertex[1], parent[1], num[n] = n, 0, 1
	count = 1
	for len(stack.g.s) > 0 {
		top := &stack.g.s[len(stack.g.s)-1]
		row := succ(top.o)
		if int(top.next) >= len(row) {
			stack.pop()
			continue
		}
		t := row[top.next]
		top.next++
		if num[t] != 0 {
			continue
		}
		count++
		num[t] = count
		parent[count], vertex[count] = num[top.o], t
		if count&cancelCheckMask == 0 {
			qv.at(int(count))
			qp.at(int(count))
			if err := h.report(stageDominators, 0.25*float64(count)/float64(n+1), 0); err != nil {
				return nil, nil, 0, err
			}
		}
		if err := stack.push(dfsFrame{o: t}); err != nil {
			return nil, nil, 0, err
		}
	}
	qv.end()
	qp.end()
	stack.free()

	// The referrers, numbered depth first, into partition files.
	release(rs, h.out.offsets)
	release(rs, h.out.targets)
	parts, err := h.partitionReferrers(num, rootTargets, count)
	if err != nil {
		return nil, nil, 0, err
	}
	defer parts.close()
	free(rs, num)
	num = nil
	// The search of the shortest paths, running beside, is joined before the
	// semidominators take their memory, so that the two hold the references
	// at once but not the search's arrays and the semidominators'.
	if search != nil {
		if err := search.wait(false); err != nil {
			return nil, nil, 0, err
		}
	}
	if err := h.report(stageDominators, 0.4, 0); err != nil {
		return nil, nil, 0, err
	}

	// The semidominators, partition by partition from the last.
	semi, err := makeArray[uint32](rs, int(count)+1, scratch, "the semidominators")
	if err != nil {
		return nil, nil, 0, err
	}
	defer func() { free(rs, semi) }()
	label, err := makeArray[uint32](rs, int(count)+1, scratch, "the semidominators' labels")
	if err != nil {
		return nil, nil, 0, err
	}
	defer func() { free(rs, label) }()
	anc, err := makeArray[uint32](rs, int(count)+1, scratch, "the path-compressed forest")
	if err != nil {
		return nil, nil, 0, err
	}
	defer func() { free(rs, anc) }()
	if err := hold(rs, parent); err != nil {
		return nil, nil, 0, err
	}
	dom := parent // the spanning-tree parents become the immediate dominators
	for k := uint32(1); k <= count; k++ {
		semi[k], label[k], anc[k] = k, k, parent[k]
	}
	path := chargedStack[uint32]{m: &h.mem, what: "the path compression"}
	defer path.free()
	var refused error // a growth of path the budget refused
	eval := func(v, lastLinked uint32) uint32 {
		if anc[v] < lastLinked {
			return label[v]
		}
		path.s = path.s[:0]
		for {
			if refused = path.push(v); refused != nil {
				return 0
			}
			v = anc[v]
			if anc[v] < lastLinked {
				break
			}
		}
		p := v
		pLabel := label[p]
		for i := len(path.s) - 1; i >= 0; i-- {
			w := path.s[i]
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
	for pi := len(parts.sizes) - 1; pi >= 0; pi-- {
		lo := uint32(pi * partitionSpan)
		hi := min(lo+uint32(partitionSpan), count+1)
		offsets, preds, err := parts.read(pi, hi-lo)
		if err != nil {
			return nil, nil, 0, err
		}
		for k := hi - 1; k >= max(lo, 2); k-- {
			s := dom[k]
			for _, j := range preds[offsets[k-lo]:offsets[k-lo+1]] {
				if u := semi[eval(j, k+1)]; u < s {
					s = u
				}
				if refused != nil {
					return nil, nil, 0, refused
				}
			}
			semi[k] = s
			if k&cancelCheckMask == 0 {
				if err := h.report(stageDominators, 0.4+0.45*float64(count-k)/float64(count), 0); err != nil {
					return nil, nil, 0, err
				}
			}
		}
		parts.done()
	}
	path.free()
	free(rs, label)
	free(rs, anc)
	label, anc = nil, nil
	for k := uint32(2); k <= count; k++ {
		c := dom[k]
		for c > semi[k] {
			c = dom[c]
		}
		dom[k] = c
	}
	free(rs, semi)
	semi = nil
	if err := h.report(stageDominators, 0.9, 0); err != nil {
		return nil, nil, 0, err
	}

	// The immediate dominators by ordinal.
	if idom, err = makeArray[uint32](rs, int(n), held, "the immediate dominators"); err != nil {
		return nil, nil, 0, err
	}
	for o := range idom {
		idom[o] = noObject
	}
	if err := hold(rs, vertex); err != nil {
		return idom, nil, 0, err
	}
	for k := uint32(2); k <= count; k++ {
		idom[vertex[k]] = vertex[dom[k]]
	}
	release(rs, vertex)
	return idom, vertex, count, nil
}

// dfsFrame is a vertex on the depth-first search's stack and the next of its
// references to follow.
type dfsFrame struct{ o, next uint32 }

// partitions are the referrers of the reached vertices, by depth-first number,
// in temporary files: partition i holds the (target, referrer) pairs whose
// target is numbered in [i*partitionSpan, (i+1)*partitionSpan).
type partitions struct {
	h     *Heap
	files []*os.File
	sizes []int64 // pairs in each partition
	disk  []int64 // bytes of each file charged to the disk
	// The partition read last: its offsets and referrers.
	buf     []uint64
	offsets []uint32
	preds   []uint32
	charged int64 // the write buffers' memory
}

// partitionReferrers writes the referrers of every reached vertex to the
// partition files: each reference between reached objects, and the virtual
// root as a referrer of each GC root.
func (h *Heap) partitionReferrers(num, rootTargets []uint32, count uint32) (*partitions, error) {
	n := uint32(len(h.ids))
	nparts := int(count)/partitionSpan + 1
	p := &partitions{h: h, sizes: make([]int64, nparts), disk: make([]int64, nparts)}
	ok := false
	defer func() {
		if !ok {
			p.close()
		}
	}()
	const bufSize = 64 << 10
	if err := h.mem.charge(int64(nparts)*bufSize, "the referrers' partitions"); err != nil {
		return nil, err
	}
	p.charged = int64(nparts) * bufSize
	writers := make([]*bufio.Writer, nparts)
	for i := range writers {
		f, err := os.CreateTemp(h.rs.dir, "leakui-hprof-*")
		if err != nil {
			return nil, err
		}
		os.Remove(f.Name()) // unlinked: gone when closed, however the process ends
		p.files = append(p.files, f)
		writers[i] = bufio.NewWriterSize(f, bufSize)
	}
	var pair [8]byte
	put := func(target, from uint32) error {
		i := int(target) / partitionSpan
		binary.LittleEndian.PutUint32(pair[:], target)
		binary.LittleEndian.PutUint32(pair[4:], from)
		if w := writers[i]; w.Available() < len(pair) {
			if err := h.rs.chargeDisk(int64(w.Buffered()), "the referrers"); err != nil {
				return err
			}
			p.disk[i] += int64(w.Buffered())
		}
		p.sizes[i]++
		_, err := writers[i].Write(pair[:])
		return err
	}
	for _, o := range rootTargets {
		if err := put(num[o], 1); err != nil {
			return nil, err
		}
	}
	qo, qt := scan(&h.rs, h.out.offsets), scan(&h.rs, h.out.targets)
	for u := range n {
		if u&cancelCheckMask == 0 {
			qo.at(int(u))
			qt.at(int(h.out.offsets[u]))
			if err := h.report(stageDominators, 0.25+0.15*float64(u)/float64(n), 0); err != nil {
				return nil, err
			}
		}
		ku := num[u]
		if ku == 0 {
			continue
		}
		for _, t := range h.out.row(u) {
			if kt := num[t]; kt != 0 && kt != ku {
				if err := put(kt, ku); err != nil {
					return nil, err
				}
			}
		}
	}
	qo.end()
	qt.end()
	for i, w := range writers {
		if err := h.rs.chargeDisk(int64(w.Buffered()), "the referrers"); err != nil {
			return nil, err
		}
		p.disk[i] += int64(w.Buffered())
		if err := w.Flush(); err != nil {
			return nil, fmt.Errorf("heap dump: writing the referrers: %w", err)
		}
	}
	h.mem.uncharge(p.charged)
	p.charged = 0
	ok = true
	return p, nil
}

// read reads partition i, whose targets are span numbers from i*partitionSpan,
// and returns its referrers grouped by target: those of lo+k are
// preds[offsets[k]:offsets[k+1]].
func (p *partitions) read(i int, span uint32) (offsets, preds []uint32, err error) {
	h := p.h
	m := p.sizes[i]
	if err := h.mem.probe(8*m+4*int64(span+1)+4*m, "a partition of the referrers"); err != nil {
		return nil, nil, err
	}
	if p.buf, err = makeArray[uint64](&h.rs, int(m), scratch, "a partition of the referrers"); err != nil {
		return nil, nil, err
	}
	if p.offsets, err = makeArray[uint32](&h.rs, int(span)+1, scratch, "a partition of the referrers"); err != nil {
		return nil, nil, err
	}
	if p.preds, err = makeArray[uint32](&h.rs, int(m), scratch, "a partition of the referrers"); err != nil {
		return nil, nil, err
	}
	raw := asBytes(p.buf)
	f := p.files[i]
	if _, err := f.ReadAt(raw, 0); err != nil && !(err == io.EOF && len(raw) == 0) {
		return nil, nil, fmt.Errorf("heap dump: reading the referrers: %w", err)
	}
	// A counting sort by target: count each target's referrers after its
	// slot, sum, then fill each target's slots from its start, which leaves
	// offsets[t] at t's end; shift back.
	lo := uint32(i * partitionSpan)
	for _, v := range p.buf {
		p.offsets[uint32(v)-lo+1]++
	}
	for k := 1; k <= int(span); k++ {
		p.offsets[k] += p.offsets[k-1]
	}
	for _, v := range p.buf {
		t := uint32(v) - lo
		p.preds[p.offsets[t]] = uint32(v >> 32)
		p.offsets[t]++
	}
	copy(p.offsets[1:], p.offsets[:span])
	p.offsets[0] = 0
	free(&h.rs, p.buf)
	p.buf = nil
	// The partition's file is read: its blocks go back.
	f.Truncate(0)
	h.rs.disk -= p.disk[i]
	p.disk[i] = 0
	return p.offsets, p.preds, nil
}

// done frees the partition read last.
func (p *partitions) done() {
	free(&p.h.rs, p.buf)
	free(&p.h.rs, p.offsets)
	free(&p.h.rs, p.preds)
	p.buf, p.offsets, p.preds = nil, nil, nil
}

// close frees the partitions and closes their files.
func (p *partitions) close() {
	p.done()
	p.h.mem.uncharge(p.charged)
	p.charged = 0
	for i, f := range p.files {
		f.Close()
		p.h.rs.disk -= p.disk[i]
		p.disk[i] = 0
	}
	p.files = nil
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

// sortRows sorts each row of g over n+1 nodes by less, stopping with the
// context.
func (h *Heap) sortRows(g csr, cmp func(a, b uint32) int) error {
	for p := 0; p+1 < len(g.offsets); p++ {
		row := g.targets[g.offsets[p]:g.offsets[p+1]]
		if len(row) > 1 {
			if err := sortStoppable(h, row, cmp); err != nil {
				return err
			}
		}
		if p&cancelCheckMask == 0 {
			if err := h.stopped(); err != nil {
				return err
			}
		}
	}
	return nil
}
