package hprof

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sync/atomic"
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
	// The steps walked (referrers read and compressed path), for the checks
	// of Options.Context: one vertex can walk millions of steps, so a check
	// every so many vertices can come seconds apart.
	var walked, nextCheck uint64
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
		walked += uint64(len(path.s))
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
	spanOf := func(pi int) uint32 {
		lo := uint32(pi * partitionSpan)
		return min(lo+uint32(partitionSpan), count+1) - lo
	}
	// The partition before is read and sorted on another goroutine while one
	// is worked through; a fill under way is waited for however this returns
	// (it is short: one partition), before the partitions are closed.
	var filling chan *partRead
	defer func() {
		if filling != nil {
			<-filling
		}
	}()
	last := len(parts.sizes) - 1
	if _, _, err := parts.read(last, spanOf(last)); err != nil {
		return nil, nil, 0, err
	}
	for pi := last; pi >= 0; pi-- {
		offsets, preds := parts.cur.offsets, parts.cur.preds
		if pi > 0 {
			next, err := parts.alloc(pi-1, spanOf(pi-1))
			if err != nil {
				return nil, nil, 0, err
			}
			filling = make(chan *partRead, 1)
			go func(ch chan<- *partRead) {
				parts.fill(next)
				ch <- next
			}(filling)
		}
		lo := uint32(pi * partitionSpan)
		hi := lo + spanOf(pi)
		for k := hi - 1; k >= max(lo, 2); k-- {
			s := dom[k]
			for _, j := range preds[offsets[k-lo]:offsets[k-lo+1]] {
				if u := semi[eval(j, k+1)]; u < s {
					s = u
				}
				if refused != nil {
					return nil, nil, 0, refused
				}
				if walked++; walked >= nextCheck {
					nextCheck = walked + stepsPerCheck
					if err := h.stopped(); err != nil {
						return nil, nil, 0, err
					}
				}
			}
			semi[k] = s
			if k&cancelCheckMask == 0 {
				if err := h.report(stageDominators, 0.4+0.45*float64(count-k)/float64(count), 0); err != nil {
					return nil, nil, 0, err
				}
			}
		}
		if pi > 0 {
			r := <-filling
			filling = nil
			if err := parts.finish(r); err != nil { // frees this partition
				return nil, nil, 0, err
			}
		}
	}
	parts.done()
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

// stepsPerCheck is how many steps of the semidominators (a referrer read, or
// a vertex of a compressed path) go between two checks of Options.Context:
// a few milliseconds of random reads.
const stepsPerCheck = 1 << 20

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
	// cur is the partition read last, next the one being read (alloc to
	// finish).
	cur, next *partRead
	charged   int64 // the write buffers' memory
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

// A partRead is a partition of the referrers being read or read: the pairs
// from its file (buf, freed once sorted) and its referrers grouped by target,
// those of lo+k being preds[offsets[k]:offsets[k+1]].
type partRead struct {
	i       int
	span    uint32
	buf     []uint64
	offsets []uint32
	preds   []uint32
	err     error
}

// read reads partition i, whose targets are span numbers from i*partitionSpan,
// and returns its referrers grouped by target.
func (p *partitions) read(i int, span uint32) (offsets, preds []uint32, err error) {
	r, err := p.alloc(i, span)
	if err != nil {
		return nil, nil, err
	}
	p.fill(r)
	if err := p.finish(r); err != nil {
		return nil, nil, err
	}
	return r.offsets, r.preds, nil
}

// alloc maps the arrays of partition i, on the goroutine that charges the
// memory; it becomes the partition in flight until finish.
func (p *partitions) alloc(i int, span uint32) (*partRead, error) {
	h := p.h
	m := p.sizes[i]
	if err := h.mem.probe(8*m+4*int64(span+1)+4*m, "a partition of the referrers"); err != nil {
		return nil, err
	}
	r := &partRead{i: i, span: span}
	p.next = r
	var err error
	if r.buf, err = makeArray[uint64](&h.rs, int(m), scratch, "a partition of the referrers"); err != nil {
		return nil, err
	}
	if r.offsets, err = makeArray[uint32](&h.rs, int(span)+1, scratch, "a partition of the referrers"); err != nil {
		return nil, err
	}
	if r.preds, err = makeArray[uint32](&h.rs, int(m), scratch, "a partition of the referrers"); err != nil {
		return nil, err
	}
	return r, nil
}

// fill reads partition r.i's file into its arrays and sorts it by target; it
// charges nothing and may run on another goroutine (the error is in r.err).
func (p *partitions) fill(r *partRead) {
	raw := asBytes(r.buf)
	if _, err := p.files[r.i].ReadAt(raw, 0); err != nil && !(err == io.EOF && len(raw) == 0) {
		r.err = fmt.Errorf("heap dump: reading the referrers: %w", err)
		return
	}
	// A counting sort by target: count each target's referrers after its
	// slot, sum, then fill each target's slots from its start, which leaves
	// offsets[t] at t's end; shift back.
	lo, span := uint32(r.i*partitionSpan), r.span
	for _, v := range r.buf {
		r.offsets[uint32(v)-lo+1]++
	}
	for k := 1; k <= int(span); k++ {
		r.offsets[k] += r.offsets[k-1]
	}
	for _, v := range r.buf {
		t := uint32(v) - lo
		r.preds[r.offsets[t]] = uint32(v >> 32)
		r.offsets[t]++
	}
	copy(r.offsets[1:], r.offsets[:span])
	r.offsets[0] = 0
}

// finish frees the pairs of the partition filled, gives its file's blocks
// back, and makes it the partition read last.
func (p *partitions) finish(r *partRead) error {
	p.next = nil
	p.done()
	p.cur = r
	free(&p.h.rs, r.buf)
	r.buf = nil
	if r.err != nil {
		return r.err
	}
	p.files[r.i].Truncate(0)
	p.h.rs.disk -= p.disk[r.i]
	p.disk[r.i] = 0
	return nil
}

// done frees the partition read last.
func (p *partitions) done() {
	if r := p.cur; r != nil {
		free(&p.h.rs, r.buf)
		free(&p.h.rs, r.offsets)
		free(&p.h.rs, r.preds)
		p.cur = nil
	}
}

// close frees the partitions and closes their files; no fill may be running.
func (p *partitions) close() {
	p.done()
	if r := p.next; r != nil {
		free(&p.h.rs, r.buf)
		free(&p.h.rs, r.offsets)
		free(&p.h.rs, r.preds)
		p.next = nil
	}
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
// context. With two cores the rows that hold the second half of the targets
// are sorted on another goroutine, waited for however this returns.
func (h *Heap) sortRows(g csr, cmp func(a, b uint32) int) error {
	rows := len(g.offsets) - 1
	if rows < 1 {
		return nil
	}
	mid := rows
	if total := g.offsets[rows]; runtime.GOMAXPROCS(0) >= 2 && int(total) >= halfFrom && !h.sequential {
		mid, _ = slices.BinarySearch(g.offsets[:rows], total/2)
	}
	var quit atomic.Bool
	sort := func(lo, hi int) error {
		for p := lo; p < hi; p++ {
			row := g.targets[g.offsets[p]:g.offsets[p+1]]
			if len(row) > 1 {
				if err := sortStoppable(h, row, cmp); err != nil {
					return err
				}
			}
			if p&cancelCheckMask == 0 {
				if quit.Load() {
					return errQuit
				}
				if err := h.stopped(); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if mid == rows {
		return sort(0, rows)
	}
	second := make(chan error, 1)
	go func() { second <- sort(mid, rows) }()
	defer func() {
		if second != nil { // a panic
			quit.Store(true)
			<-second
		}
	}()
	err := sort(0, mid)
	if err != nil {
		quit.Store(true)
	}
	err2 := <-second
	second = nil
	if err == nil && !errors.Is(err2, errQuit) {
		err = err2
	}
	return err
}
