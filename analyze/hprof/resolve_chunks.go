package hprof

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/leakui/leakui/analyze"
)

// chunkResolver is one chunk of the names' reading done beside others
// (runChunks): its resolver, what its names took, and what stopped it.
type chunkResolver struct {
	r     *resolver
	small int64        // bytes of names and fields' vias counted, not charged
	quit  *atomic.Bool // set when the reading is stopped
	err   error
}

// runChunks is run's reading of the dump in the chunks pass 2 read, on
// workers goroutines. A chunk's resolver names the fields it finds in a table
// of its own, in the order it meets them, and writes those numbers into the
// wants' slots and the paths' fields of its objects (no other chunk writes
// them: a want and a step belong to the object that references). The calling
// goroutine merges the chunks' tables in the dump's order, which numbers every
// name as one reading front to back would have, its first meeting being in the
// first chunk that meets it, and renumbers the chunks' answers. The result is
// the same, value for value, as run on one goroutine.
func (r *resolver) runChunks(workers int) error {
	h := r.h
	rs := &h.rs
	cps := h.cps
	if r.all != nil {
		if err := hold(rs, h.bfs); err != nil {
			return err
		}
		defer release(rs, h.bfs)
		if err := hold(rs, r.all); err != nil {
			return err
		}
		defer release(rs, r.all)
		qo, qt := scan(rs, h.out.offsets), scan(rs, h.out.targets)
		r.qo, r.qt = qo, qt
		defer func() {
			r.qo.end()
			r.qt.end()
		}()
	}
	h.nameChunks = len(cps)
	// wantsFrom is the first want of an object numbered o or more.
	wantsFrom := func(o uint32) int {
		i, _ := slices.BinarySearchFunc(r.wants, o, func(w fieldWant, o uint32) int { return cmpUint32(w.from, o) })
		return i
	}
	// At most workers+1 chunks are read and not yet merged.
	results := make([]chan *chunkResolver, len(cps))
	for i := range results {
		results[i] = make(chan *chunkResolver, 1)
	}
	tokens := make(chan struct{}, workers+1)
	for range workers + 1 {
		tokens <- struct{}{}
	}
	var quit atomic.Bool
	quitCh := make(chan struct{})
	var next atomic.Int64
	var wg sync.WaitGroup
	// The readers are stopped and waited for however this returns: a
	// progress callback may panic, and the arrays they write are unmapped
	// after.
	stop := sync.OnceFunc(func() {
		quit.Store(true)
		close(quitCh)
		wg.Wait()
	})
	defer stop()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := newScanner(h.file, h.fileSize)
			s.idSize = h.IDSize
			for {
				select {
				case <-tokens:
				case <-quitCh:
					return
				}
				i := int(next.Add(1) - 1)
				if i >= len(cps) {
					return
				}
				c := &chunkResolver{quit: &quit}
				cr := &resolver{h: h, wants: r.wants, vias: r.vias, texts: r.texts, all: r.all,
					nameIdx: map[string]uint32{}, text: map[uint32]string{}, fieldVias: map[uint32][]uint32{},
					n: cps[i].ord, next: wantsFrom(cps[i].ord), s: s, chunk: c}
				c.r = cr
				limit, end := h.fileSize, uint32(len(h.ids))
				if i+1 < len(cps) {
					limit, end = cps[i+1].off, cps[i+1].ord
				}
				readAhead(h.file, cps[i].off, limit-cps[i].off)
				err := walkRange(s, cps[i].off, cps[i].segEnd, limit, cr)
				if err == nil && cr.n != end {
					err = fmt.Errorf("%w: the dump changed between two readings", analyze.ErrMalformed)
				}
				if errors.Is(err, errQuit) {
					return
				}
				c.err = err
				results[i] <- c // the channel has room for it
				if err != nil {
					return
				}
			}
		}()
	}
	// maps[i] renumbers chunk i's vias (nil: they are the merged numbers).
	maps := make([][]uint32, len(cps))
	span := max(h.prog.size-h.prog.dumpStart, 1)
	err := func() error {
		for i := range cps {
			var c *chunkResolver
			select {
			case c = <-results[i]:
			case <-h.done():
				return h.stopped()
			}
			if c.err != nil {
				return c.err
			}
			// The chunk's tables, charged while they are merged.
			if err := h.mem.charge(c.small, "the names of fields"); err != nil {
				return err
			}
			maps[i] = r.merge(c.r)
			h.mem.uncharge(c.small)
			if m := maps[i]; m != nil {
				hi := len(r.wants)
				if i+1 < len(cps) {
					hi = wantsFrom(cps[i+1].ord)
				}
				for _, w := range r.wants[wantsFrom(cps[i].ord):hi] {
					if v := r.vias[w.slot]; v != viaUnknown && v&viaElement == 0 {
						r.vias[w.slot] = m[v]
					}
				}
			}
			tokens <- struct{}{}
			end, endOrd := h.fileSize, uint32(len(h.ids))
			if i+1 < len(cps) {
				end, endOrd = cps[i+1].off, cps[i+1].ord
			}
			if r.all != nil && endOrd < uint32(len(h.ids)) {
				r.qo.at(int(endOrd))
				r.qt.at(int(h.out.offsets[endOrd]))
			}
			if cps[i].ord/(cancelCheckMask+1) == endOrd/(cancelCheckMask+1) && i+1 < len(cps) {
				continue
			}
			if err := h.report(stageNames, float64(end-h.prog.dumpStart)/float64(span), end); err != nil {
				return err
			}
		}
		return nil
	}()
	stop()
	if err != nil {
		return err
	}
	if err := r.renumberAll(maps); err != nil {
		return err
	}
	r.h.mem.uncharge(fieldWantSize * int64(len(r.wants)))
	r.wants = nil
	return r.h.mem.flush()
}

// merge adds the names of chunk c to r's table, in c's order, takes its texts,
// and returns the merged number of each of c's vias, nil if they are the same.
func (r *resolver) merge(c *resolver) []uint32 {
	m := make([]uint32, len(c.names))
	same := true
	for l, name := range c.names {
		m[l] = r.via(name)
		same = same && m[l] == uint32(l)
	}
	for o, t := range c.text {
		r.text[o] = t
	}
	if same {
		return nil
	}
	return m
}

// renumberAll gives the paths' fields the merged numbers: the field of object
// t's step was named by the chunk of the object before it, h.bfs[t].
func (r *resolver) renumberAll(maps [][]uint32) error {
	if r.all == nil || !slices.ContainsFunc(maps, func(m []uint32) bool { return m != nil }) {
		return nil
	}
	cps := r.h.cps
	for t, v := range r.all {
		if t&cancelCheckMask == 0 {
			if err := r.h.stopped(); err != nil {
				return err
			}
		}
		if v == viaUnknown || v&viaElement != 0 {
			continue
		}
		// The chunk of o: the last whose first ordinal is o or less.
		o := r.h.bfs[t]
		i := sort.Search(len(cps), func(k int) bool { return cps[k].ord > o }) - 1
		if m := maps[i]; m != nil {
			r.all[t] = m[v]
		}
	}
	return nil
}
