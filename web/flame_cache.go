package web

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
)

// flameOf builds (or takes from the cache) the flame graph of one file of a report
// for the query's sample type and filter: building one over hundreds of thousands
// of stacks takes a few hundred milliseconds, and a page is often viewed again.
func (s *Server) flameOf(ctx context.Context, ps *profileSet, file int, filtered *pprof.Profile) (pprof.FlameGraph, error) {
	key := strings.Join([]string{ps.rep.Artifacts[file].SHA256, strconv.Itoa(ps.si), strings.Join(ps.q.filterText[:], "\x00")}, "|")
	return s.cachedView(ctx, key, func(b *analyze.Budget) (pprof.FlameGraph, error) {
		return filtered.FlameWithin(ps.si, pprof.DefaultFlameFraction, b)
	})
}

// diffFlameOf builds (or takes from the cache) the diff flame graph of a
// report's base and target for the query's sample type and filter.
func (s *Server) diffFlameOf(ctx context.Context, ps *profileSet, base, target *pprof.Profile) (pprof.FlameGraph, error) {
	key := strings.Join([]string{"diff", ps.rep.Artifacts[ps.q.base].SHA256, ps.rep.Artifacts[ps.q.target].SHA256, strconv.Itoa(ps.si), strings.Join(ps.q.filterText[:], "\x00")}, "|")
	return s.cachedView(ctx, key, func(b *analyze.Budget) (pprof.FlameGraph, error) {
		return pprof.DiffFlameWithin(base, target, ps.si, pprof.DefaultFlameFraction, b)
	})
}

// cachedView returns the flame graph cached under key, or builds it: within a
// view slot (see viewQueue) and an analysis's memory budget, then caches it,
// charged to the server's budget. Requests for a view being built wait for it.
func (s *Server) cachedView(ctx context.Context, key string, build func(*analyze.Budget) (pprof.FlameGraph, error)) (pprof.FlameGraph, error) {
	if fg, ok := s.flames.get(key); ok {
		return fg, nil
	}
	release, err := s.views.acquire(ctx)
	if err != nil {
		return pprof.FlameGraph{}, err
	}
	defer release()
	if fg, ok := s.flames.get(key); ok { // built while this request waited
		return fg, nil
	}
	b := s.analysisBudget()
	defer b.Release()
	fg, err := build(b)
	if err != nil {
		return fg, err
	}
	s.flames.add(key, fg)
	return fg, nil
}

// flameCost estimates the bytes a flame graph holds: its boxes (a FlameNode, its
// name's header, its place in its parent's children) and their names.
func flameCost(fg pprof.FlameGraph) int64 { return int64(fg.Nodes) * 160 }

// flameCacheBytes bounds what the flame graph cache keeps.
const flameCacheBytes = 64 << 20

// viewQueue bounds the expensive views (flame graphs, diff flame graphs) that are
// built at once: a request that finds every slot taken waits at most wait, then
// gets ErrBusy (503 with Retry-After), instead of building without limit.
type viewQueue struct {
	slots chan struct{}
	wait  time.Duration
}

func newViewQueue(slots int, wait time.Duration) *viewQueue {
	return &viewQueue{slots: make(chan struct{}, max(slots, 1)), wait: wait}
}

// acquire takes a slot, waiting up to q.wait (or until ctx ends); call the
// returned function to give it back.
func (q *viewQueue) acquire(ctx context.Context) (func(), error) {
	select {
	case q.slots <- struct{}{}:
		return func() { <-q.slots }, nil
	default:
	}
	t := time.NewTimer(q.wait)
	defer t.Stop()
	select {
	case q.slots <- struct{}{}:
		return func() { <-q.slots }, nil
	case <-t.C:
		return nil, errViewsBusy
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// errViewsBusy is the answer when no view slot freed up in time.
var errViewsBusy = &busyError{"every slot for building flame graphs stayed taken; try again in a few seconds"}

// busyError wraps analyze.ErrBusy with a message of its own.
type busyError struct{ msg string }

func (e *busyError) Error() string { return e.msg }
func (e *busyError) Unwrap() error { return analyze.ErrBusy }

// viewWait is how long a view waits for a slot; viewSlots are per CPU.
const (
	viewWait  = 10 * time.Second
	viewSlots = 1
)
