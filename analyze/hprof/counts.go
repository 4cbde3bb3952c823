package hprof

import (
	"runtime"
	"sync/atomic"
)

// objectCounts are what countObjects counts: by class number the instances and
// their shallow size, and in all the shallow size and the unreachable objects
// and their size (with reach).
type objectCounts struct {
	instances, byClass                     []int64
	shallow, unreachable, unreachableBytes int64
}

// countHalfFrom is the fewest objects that countObjects splits in two (a
// variable for the tests).
var countHalfFrom = 1 << 16

// countObjects counts the objects by class, and with reach the unreachable
// ones, in one pass over their classes, sizes (and immediate dominators). With
// two cores the second half of the objects is counted on another goroutine,
// stopped with the context and waited for however this returns; the counts
// are sums, the same whoever counted what.
func (h *Heap) countObjects(reach bool) (objectCounts, error) {
	n := len(h.class)
	classes := len(h.Classes)
	mid := n
	if runtime.GOMAXPROCS(0) >= 2 && n >= countHalfFrom && !h.sequential {
		mid = n / 2
	}
	var halves [2]objectCounts
	halves[0] = objectCounts{instances: make([]int64, classes), byClass: make([]int64, classes)}
	if mid < n {
		halves[1] = objectCounts{instances: make([]int64, classes), byClass: make([]int64, classes)}
	}
	charge := 32 * int64(classes)
	if err := h.mem.charge(charge, "the histogram"); err != nil {
		return objectCounts{}, err
	}
	defer h.mem.uncharge(charge)
	rs := &h.rs
	var quit atomic.Bool
	// count counts objects [lo, hi) into c; the first half reports the
	// progress, the second only checks whether to stop.
	count := func(c *objectCounts, lo, hi int) error {
		seqs := []sequence{scan(rs, h.class), scan(rs, h.size)}
		if reach {
			seqs = append(seqs, scan(rs, h.idom))
		}
		for i := range seqs {
			// The pages before lo are the other half's: never dropped here.
			seqs[i].done = pageRound(int64(lo) * seqs[i].elem)
		}
		for o := lo; o < hi; o++ {
			cn := h.class[o]
			s := h.ShallowSize(uint32(o))
			c.instances[cn]++
			c.byClass[cn] += s
			c.shallow += s
			if reach && h.idom[o] == noObject {
				c.unreachable++
				c.unreachableBytes += s
			}
			if o&cancelCheckMask == 0 {
				for i := range seqs {
					seqs[i].at(o)
				}
				if lo != 0 {
					if quit.Load() {
						return errQuit
					}
					if err := h.stopped(); err != nil {
						return err
					}
				} else if err := h.report(stageHistogram, 0.3*float64(o)/float64(hi), 0); err != nil {
					return err
				}
			}
		}
		return nil
	}
	var second chan error
	if mid < n {
		second = make(chan error, 1)
		go func() { second <- count(&halves[1], mid, n) }()
		defer func() {
			if second != nil {
				quit.Store(true)
				<-second
			}
		}()
	}
	err := count(&halves[0], 0, mid)
	if second != nil {
		if err != nil {
			quit.Store(true)
		}
		err2 := <-second
		second = nil
		if err == nil {
			err = err2
		}
	}
	for _, a := range []sequence{scan(rs, h.class), scan(rs, h.size)} {
		a.end()
	}
	if reach {
		q := scan(rs, h.idom)
		q.end()
	}
	if err != nil {
		return objectCounts{}, err
	}
	all := halves[0]
	if mid < n {
		b := halves[1]
		for cn := range classes {
			all.instances[cn] += b.instances[cn]
			all.byClass[cn] += b.byClass[cn]
		}
		all.shallow += b.shallow
		all.unreachable += b.unreachable
		all.unreachableBytes += b.unreachableBytes
	}
	return all, nil
}
