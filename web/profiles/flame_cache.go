package profiles

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/web/serrors"
)

// flameTreeEntry is a profile's flame tree for one sample type and filter, as
// the cache keeps it: the tree, and the filter options that matched nothing in
// the profile (for the page's notices, which a cached tree must still give).
type flameTreeEntry struct {
	tree      *pprof.FlameTree
	unmatched []string
}

// flameTreeKey names a file's tree in the cache: its content, the sample type
// and the filter.
func flameTreeKey(ps *profileSet, file int) string {
	return strings.Join([]string{ps.rep.Artifacts[file].SHA256, strconv.Itoa(ps.si), strings.Join(ps.q.filterText[:], "\x00")}, "|")
}

// flameCut cuts the flame graph of one file of a report, for the query's
// sample type and filter, from the file's cached tree (built when missing).
func (s *Kind) flameCut(ctx context.Context, ps *profileSet, file int, notices *[]string) (*pprof.FlameCut, error) {
	trees, err := s.flameTrees(ctx, ps, notices, file)
	if err != nil {
		return nil, err
	}
	return pprof.CutFlame(trees[0], pprof.DefaultFlameFraction), nil
}

// diffFlameCut cuts the diff flame graph of a report's base and target from
// their cached trees: the profiles are walked only for a tree not yet cached,
// and a tree serves every diff its profile is in, and its own flame graph.
func (s *Kind) diffFlameCut(ctx context.Context, ps *profileSet, notices *[]string) (*pprof.FlameCut, error) {
	trees, err := s.flameTrees(ctx, ps, notices, ps.q.base, ps.q.target)
	if err != nil {
		return nil, err
	}
	return pprof.CutDiffFlame(trees[0], trees[1], pprof.DefaultFlameFraction)
}

// flameTrees returns the trees of the report's files, for the query's sample
// type and filter, from the cache, and adds a notice for every filter option
// that matched nothing in a file. Trees not cached are built (the file's
// profile filtered, then its samples walked once) within a view slot (see
// viewQueue) and an analysis's memory budget, then cached, charged to the
// server's budget. Requests for a tree being built wait for it.
func (s *Kind) flameTrees(ctx context.Context, ps *profileSet, notices *[]string, files ...int) ([]*pprof.FlameTree, error) {
	entries := make([]*flameTreeEntry, len(files))
	missing := false
	for i, f := range files {
		entries[i], _ = s.flames.Get(flameTreeKey(ps, f))
		missing = missing || entries[i] == nil
	}
	if missing {
		release, err := s.views.acquire(ctx)
		if err != nil {
			return nil, err
		}
		defer release()
		b := s.d.Analysis()
		defer b.Release()
		for i, f := range files {
			if entries[i] != nil {
				continue
			}
			key := flameTreeKey(ps, f)
			if e, ok := s.flames.Get(key); ok { // built while this request waited
				entries[i] = e
				continue
			}
			e, err := buildFlameTree(ps, f, b)
			if err != nil {
				return nil, err
			}
			// The tree stays charged to this build until it ends, whether
			// the cache keeps it or not: the next one is built beside it.
			if err := b.Charge(e.tree.MemSize()); err != nil {
				return nil, err
			}
			s.flames.Add(key, e)
			entries[i] = e
		}
	}
	trees := make([]*pprof.FlameTree, len(files))
	for i, e := range entries {
		trees[i] = e.tree
		ps.filterNotices(files[i], e.unmatched, notices)
	}
	return trees, nil
}

// buildFlameTree filters a file's profile (the copy charged to b and dropped
// once the tree is built) and builds its tree for the query's sample type.
func buildFlameTree(ps *profileSet, file int, b *analyze.Budget) (*flameTreeEntry, error) {
	local := b.Child(b.Remaining())
	defer local.Release()
	fp, m, err := ps.profiles[file].Filter(ps.q.filter, local)
	if err != nil {
		return nil, err
	}
	t, err := fp.FlameTree(ps.si, local)
	if err != nil {
		return nil, err
	}
	return &flameTreeEntry{tree: t, unmatched: ps.q.filter.Unmatched(m)}, nil
}

// flameCost is what a cached flame tree is charged: the bytes it holds.
func flameCost(e *flameTreeEntry) int64 { return e.tree.MemSize() + 64 }

// flameCacheBytes bounds what the flame tree cache keeps: the trees of a few
// profiles of a million stacks (tens of MB each).
const flameCacheBytes = 256 << 20

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
var errViewsBusy = serrors.Busy("every slot for building flame graphs stayed taken; try again in a few seconds")

// viewWait is how long a view waits for a slot; viewSlots are per CPU.
const (
	viewWait  = 10 * time.Second
	viewSlots = 1
)
