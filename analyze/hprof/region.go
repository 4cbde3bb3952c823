package hprof

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/leakui/leakui/analyze"
)

// The analysis keeps its per-object arrays outside the Go heap, in regions it
// maps and unmaps itself, so that what it gives back goes back to the system at
// once and the collector never scans them. A region is anonymous memory, or,
// for a large dump (spilling), the pages of an unlinked temporary file mapped
// shared: the kernel may write those back and drop them from memory, so an
// array the analysis needs again later but not now costs disk, not memory.
//
// The memory budget is charged where memory is taken:
//
//   - an anonymous region, for its whole size from when it is mapped until it
//     is unmapped;
//   - a file region, for its whole size while the analysis holds it (reads or
//     writes it at random: from hold until release, which drops its pages),
//     and for a window of windowBytes while it is written or read front to
//     back, its pages dropped behind;
//   - never for the files themselves, which count toward disk: Options.MaxTemp
//     caps them (ErrTooLarge beyond), and each file takes its blocks
//     (fallocate) before it is written, so a full disk is an error, not a
//     fault.

// windowBytes is what a region written or read front to back keeps in memory
// before its pages are dropped.
const windowBytes = 4 << 20

var pageSize = int64(os.Getpagesize())

func pageRound(n int64) int64 { return (n + pageSize - 1) / pageSize * pageSize }

// region is one mapping: reserved bytes of address space, of which the first
// size are usable.
type region struct {
	base     unsafe.Pointer
	reserved int64
	size     int64
	f        *os.File // the unlinked file of a file region, nil for memory
	disk     int64    // bytes of the file
	charged  int64    // bytes charged to the meter for it
	held     bool     // a file region the analysis holds (charged whole)
	pins     int      // holders on other goroutines: a release waits for them (pin)
	inMemory bool     // a held file region whose pages are memory until released (keepInMemory)
	what     string
	seq      int // the order the regions were made in
}

// regions are a Heap's mappings.
type regions struct {
	dir      string // where the files go ("" for os.TempDir)
	spill    bool   // the arrays that outlive a stage go to files
	mem      *meter
	maxDisk  int64 // bytes of files at most (≤ 0: the disk's room)
	disk     int64
	peakDisk int64
	byBase   map[unsafe.Pointer]*region
	made     int // regions made so far
}

// chargeDisk counts n more bytes of temporary files.
func (rs *regions) chargeDisk(n int64, what string) error {
	if rs.maxDisk > 0 && rs.disk+n > rs.maxDisk {
		return fmt.Errorf("%w: heap dump: the temporary files for %s need more than %s (%s in use)",
			analyze.ErrTooLarge, what, analyze.FormatBytes(rs.maxDisk), analyze.FormatBytes(rs.disk))
	}
	rs.disk += n
	rs.peakDisk = max(rs.peakDisk, rs.disk)
	return nil
}

func (rs *regions) add(r *region) {
	if rs.byBase == nil {
		rs.byBase = map[unsafe.Pointer]*region{}
	}
	rs.made++
	r.seq = rs.made
	rs.byBase[r.base] = r
}

// snapshot marks the regions made so far, for rollback.
func (rs *regions) snapshot() int { return rs.made }

// rollback frees the regions made since mark and releases the older ones, as
// a stage that failed leaves them.
func (rs *regions) rollback(mark int) {
	var gone []*region
	for _, r := range rs.byBase {
		if r.seq > mark {
			delete(rs.byBase, r.base)
			gone = append(gone, r)
		} else {
			rs.unhold(r)
		}
	}
	rs.unmapEach(gone)
}

// unmapEach unmaps the regions of list, on a goroutine a core: the kernel
// frees the pages of an unmapped region and the blocks of its closed file on
// the calling thread, and for the gigabytes of a large dump's analysis that
// takes a second or more on one core, which a cancelled analysis would spend
// before it returns.
func (rs *regions) unmapEach(list []*region) {
	for _, r := range list {
		rs.uncharge(r)
	}
	workers := min(runtime.GOMAXPROCS(0), len(list))
	if workers <= 1 {
		for _, r := range list {
			unmapPages(r)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(list)); i = next.Add(1) - 1 {
				unmapPages(list[i])
			}
		})
	}
	wg.Wait()
}

// charge charges n bytes for r.
func (rs *regions) charge(r *region, n int64) error {
	if err := rs.mem.charge(n, r.what); err != nil {
		return err
	}
	r.charged += n
	return nil
}

// uncharge gives back what r holds of the budget and of the disk.
func (rs *regions) uncharge(r *region) {
	rs.mem.uncharge(r.charged)
	r.charged = 0
	rs.disk -= r.disk
	r.disk = 0
}

// alloc maps a region of size bytes, able to grow to max. A memory region is
// charged whole; a file region (file, and the heap spills) is charged whole
// when held, else a window.
func (rs *regions) alloc(size, max int64, file, held bool, what string) (*region, error) {
	file = file && rs.spill && fileBacked
	charge := pageRound(size)
	switch {
	case file && !held:
		charge = windowBytes
	case file:
		charge = pageRound(max)
	}
	if err := rs.mem.charge(charge, what); err != nil {
		return nil, err
	}
	r, err := rs.mapRegion(size, max, file, what)
	if err != nil {
		rs.mem.uncharge(charge)
		return nil, err
	}
	r.charged, r.held = charge, file && held
	if r.held {
		if err := rs.keepInMemory(r); err != nil {
			rs.unmap(r)
			return nil, err
		}
	}
	rs.add(r)
	return r, nil
}

// grow makes the first size bytes of r usable, charging a memory region for
// its growth.
func (rs *regions) grow(r *region, size int64) error {
	if size <= r.size {
		return nil
	}
	if r.f == nil {
		if err := rs.charge(r, pageRound(size)-r.size); err != nil {
			return err
		}
	}
	return rs.growRegion(r, size)
}

// free unmaps r.
func (rs *regions) free(r *region) {
	if r == nil {
		return
	}
	delete(rs.byBase, r.base)
	rs.unmap(r)
}

// freeAll unmaps every region, as Close does.
func (rs *regions) freeAll() {
	list := make([]*region, 0, len(rs.byBase))
	for _, r := range rs.byBase {
		list = append(list, r)
	}
	rs.byBase = nil
	rs.unmapEach(list)
}

// regionOf is the region whose first value is at p, nil for memory that is not
// a region's (the Go heap's, in tests).
func (rs *regions) regionOf(p unsafe.Pointer) *region {
	if p == nil {
		return nil
	}
	return rs.byBase[p]
}

// use says how an array is used, which decides where it lives.
type use uint8

const (
	// scratch arrays live in memory, charged until freed.
	scratch use = iota
	// held arrays outlive their stage: a file region when the heap spills,
	// held (charged whole) until released.
	held
	// streamed arrays outlive their stage and are written front to back: a
	// file region when the heap spills, charged a window.
	streamed
)

// makeArray maps an array of n zero values.
func makeArray[T any](rs *regions, n int, u use, what string) ([]T, error) {
	var zero T
	size := int64(n) * int64(unsafe.Sizeof(zero))
	r, err := rs.alloc(size, size, u != scratch, u == held, what)
	if err != nil {
		return nil, err
	}
	return unsafe.Slice((*T)(r.base), n), nil
}

// hold charges the whole of the file region of s, which the analysis is about
// to read or write at random.
func hold[T any](rs *regions, s []T) error {
	r := rs.regionOf(unsafe.Pointer(unsafe.SliceData(s)))
	if r == nil || r.f == nil || r.held {
		return nil
	}
	if err := rs.mem.charge(r.size-r.charged, r.what); err != nil {
		return err
	}
	r.charged, r.held = r.size, true
	return nil
}

// release drops the pages of the file region of s from memory (they stay in its
// file) and gives back its charge but for a window; while the region is pinned,
// at the last unpin.
func release[T any](rs *regions, s []T) {
	if r := rs.regionOf(unsafe.Pointer(unsafe.SliceData(s))); r != nil {
		if r.pins > 0 {
			return // the last unpin releases it
		}
		rs.unhold(r)
	}
}

// pin holds the file region of s for work on another goroutine: until as many
// unpins, a release keeps its pages (and its charge), and scans over it drop
// none. Regions are pinned and unpinned on the goroutine that maps them.
func pin[T any](rs *regions, s []T) error {
	if err := hold(rs, s); err != nil {
		return err
	}
	if r := rs.regionOf(unsafe.Pointer(unsafe.SliceData(s))); r != nil {
		r.pins++
	}
	return nil
}

// unpin ends a pin; the last one releases the region.
func unpin[T any](rs *regions, s []T) {
	if r := rs.regionOf(unsafe.Pointer(unsafe.SliceData(s))); r != nil && r.pins > 0 {
		if r.pins--; r.pins == 0 {
			rs.unhold(r)
		}
	}
}

// unhold drops the pages of a file region and gives back its charge but for a
// window.
func (rs *regions) unhold(r *region) {
	if r.f == nil {
		return
	}
	r.pins = 0
	if r.inMemory {
		if !rs.toFile(r) {
			return
		}
	} else {
		rs.dropPages(r, 0, r.size)
	}
	if keep := min(r.charged, windowBytes); r.charged > keep {
		rs.mem.uncharge(r.charged - keep)
		r.charged = keep
	}
	r.held = false
}

// chargeOf is what the region of s holds of the budget.
func (rs *regions) chargeOf(p []uint32) int64 {
	if r := rs.regionOf(unsafe.Pointer(unsafe.SliceData(p))); r != nil {
		return r.charged
	}
	return 0
}

// free unmaps the region of s.
func free[T any](rs *regions, s []T) {
	rs.free(rs.regionOf(unsafe.Pointer(unsafe.SliceData(s))))
}

// sequence drops the pages of a file region behind a front-to-back (or
// back-to-front) pass over it, every windowBytes.
type sequence struct {
	rs   *regions
	r    *region
	elem int64
	done int64 // bytes dropped from the start (forward) or the end (backward)
}

// scan starts a pass over s (nil-safe for slices that are not a file region's).
func scan[T any](rs *regions, s []T) sequence {
	var zero T
	r := rs.regionOf(unsafe.Pointer(unsafe.SliceData(s)))
	if r != nil && (r.f == nil || r.held) {
		r = nil // memory, or held whole: nothing to drop
	}
	return sequence{rs: rs, r: r, elem: int64(unsafe.Sizeof(zero))}
}

// at drops the pages before value i, in a forward pass.
func (q *sequence) at(i int) {
	if q.r == nil {
		return
	}
	if b := int64(i) * q.elem; b-q.done >= windowBytes {
		b = b / pageSize * pageSize
		q.rs.dropPages(q.r, q.done, b)
		q.done = b
	}
}

// back drops the pages after value i, in a backward pass.
func (q *sequence) back(i int) {
	if q.r == nil {
		return
	}
	end := q.r.size - q.done
	if b := pageRound(int64(i+1) * q.elem); end-b >= windowBytes {
		q.rs.dropPages(q.r, b, end)
		q.done = q.r.size - b
	}
}

// end drops what the pass left.
func (q *sequence) end() {
	if q.r != nil {
		q.rs.dropPages(q.r, 0, q.r.size)
	}
}

// grower is an array that grows in place (its region reserves its largest size)
// as values are added; in a file region its pages are dropped behind, so that it
// is written as a stream.
type grower[T any] struct {
	rs   *regions
	r    *region
	s    []T
	q    sequence
	what string
}

// newGrower maps a growing array of at most max values, scratch or streamed.
func newGrower[T any](rs *regions, max int, u use, what string) (*grower[T], error) {
	var zero T
	elem := int64(unsafe.Sizeof(zero))
	r, err := rs.alloc(0, int64(max)*elem, u != scratch, false, what)
	if err != nil {
		return nil, err
	}
	g := &grower[T]{rs: rs, r: r, what: what, q: sequence{rs: rs, elem: elem}}
	if r.f != nil {
		g.q.r = r
	}
	g.s = unsafe.Slice((*T)(r.base), r.size/elem)[:0]
	return g, nil
}

// add appends v.
func (g *grower[T]) add(v T) error {
	if len(g.s) == cap(g.s) {
		if err := g.more(); err != nil {
			return err
		}
	}
	g.s = append(g.s, v)
	return nil
}

// addAll appends vs.
func (g *grower[T]) addAll(vs []T) error {
	for len(vs) > 0 {
		if len(g.s) == cap(g.s) {
			if err := g.more(); err != nil {
				return err
			}
		}
		k := min(len(vs), cap(g.s)-len(g.s))
		g.s = append(g.s, vs[:k]...)
		vs = vs[k:]
	}
	return nil
}

func (g *grower[T]) more() error {
	var zero T
	elem := int64(unsafe.Sizeof(zero))
	n := len(g.s)
	want := int64(n+1) * elem
	if want > g.r.reserved {
		return fmt.Errorf("%w: heap dump: more %s than the dump can hold", analyze.ErrMalformed, g.what)
	}
	step := int64(windowBytes)
	if g.r.f == nil {
		step = max(int64(n)*elem/4, 64<<10) // memory grows by a quarter
	}
	if err := g.rs.grow(g.r, min(max(want, g.r.size+step), g.r.reserved)); err != nil {
		return err
	}
	g.s = unsafe.Slice((*T)(g.r.base), g.r.size/elem)[:n]
	g.q.at(n)
	return nil
}

// done returns the values added, and the grower is not to be used after.
func (g *grower[T]) done() []T {
	g.q.end()
	return g.s
}

// deepStack is a stack that may grow as deep as there are objects (a
// depth-first search of a million-long chain): a grower whose pages more than
// a window below the top are dropped as it grows, and come back from the file
// as it shrinks to them.
type deepStack[T any] struct {
	g       *grower[T]
	dropped int64 // bytes from the bottom whose pages were dropped
}

// newDeepStack maps a stack of at most max values.
func newDeepStack[T any](rs *regions, max int, what string) (*deepStack[T], error) {
	g, err := newGrower[T](rs, max, streamed, what)
	if err != nil {
		return nil, err
	}
	g.q.r = nil // the stack drops its own pages
	return &deepStack[T]{g: g}, nil
}

func (s *deepStack[T]) push(v T) error {
	g := s.g
	if len(g.s) == cap(g.s) {
		if err := g.more(); err != nil {
			return err
		}
	}
	g.s = append(g.s, v)
	if len(g.s)&cancelCheckMask == 0 && g.r.f != nil {
		top := int64(len(g.s)) * int64(unsafe.Sizeof(v))
		if top-s.dropped > 2*windowBytes {
			end := (top - windowBytes) / pageSize * pageSize
			g.rs.dropPages(g.r, s.dropped, end)
			s.dropped = end
		}
	}
	return nil
}

// pop removes the top value.
func (s *deepStack[T]) pop() {
	g := s.g
	g.s = g.s[:len(g.s)-1]
	var zero T
	if at := int64(len(g.s)) * int64(unsafe.Sizeof(zero)); at < s.dropped {
		s.dropped = at / pageSize * pageSize // faulted back in from here up
	}
}

// free unmaps the stack.
func (s *deepStack[T]) free() {
	if s != nil && s.g != nil {
		s.g.rs.free(s.g.r)
		s.g = nil
	}
}
