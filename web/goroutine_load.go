package web

import (
	"context"
	"io"
	"sort"
	"strconv"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/goroutines"
	"github.com/leakui/leakui/web/kind"
)

// Parsed goroutine dumps and their grouped reports are cached by artifact hash
// (and the decompression limit they were read with), like the profiles: a report
// viewed many times, or a 50,000-goroutine dump paged through, is parsed and
// grouped once. The caches are the Server's (s.goroutineDumps,
// s.goroutineReports), charged to its memory budget: a dump costs what its parse
// charged (Dump.MemSize), a report its estimate (Report.MemSize).

// goroutineDumpCacheBytes bounds what each of the caches of parsed dumps and of
// their reports keeps: a few dumps of millions of goroutines must not stay
// pinned.
const goroutineDumpCacheBytes = 256 << 20

func goroutineDumpKey(sha string, limit int64) string {
	return sha + "/" + strconv.FormatInt(limit, 10)
}

// loadGoroutineDump returns an artifact's parsed goroutine dump (a text dump or a
// goroutine profile.proto), from the cache when it is there; text is parsed as it
// streams from the store.
func (s *Server) loadGoroutineDump(ctx context.Context, sha string) (*goroutines.Dump, error) {
	return s.goroutineDump(ctx, sha, kind.Stored(s.store, sha, ""), false)
}

// parseReceivedGoroutineDump parses an uploaded file as it streams from its
// temporary file and caches the result under its hash; errors name the file.
func (s *Server) parseReceivedGoroutineDump(f *kind.Received) (*goroutines.Dump, error) {
	return s.goroutineDump(context.Background(), f.SHA256, f.Source(), true)
}

// goroutineDump loads the dump of hash sha from src.
func (s *Server) goroutineDump(ctx context.Context, sha string, src kind.Source, wrap bool) (*goroutines.Dump, error) {
	limit := s.cfg.MaxDecompressed
	return kind.Load(ctx, &s.deps, s.goroutineDumps, kind.Parse[*goroutines.Dump]{
		Key: goroutineDumpKey(sha, limit), Sources: []kind.Source{src}, Wrap: wrap,
		Run: func(_ context.Context, in []io.Reader, b *analyze.Budget) (*goroutines.Dump, error) {
			return goroutines.ParseWithin(in[0], limit, b)
		},
	})
}

// goroutineReport groups the target artifact's dump, or compares it with the base
// artifact's when base is not "", from the cache when it is there; split is
// goroutines.SplitCreator to split one dump's groups by creating goroutine. The
// report is shared: callers must not change it (copy it to cut its groups).
func (s *Server) goroutineReport(ctx context.Context, base, target, split string) (*goroutines.Report, error) {
	key := base + ">" + goroutineDumpKey(target, s.cfg.MaxDecompressed) + ">" + split
	return kind.Load(ctx, &s.deps, s.goroutineReports, kind.Parse[*goroutines.Report]{Key: key,
		Run: func(ctx context.Context, _ []io.Reader, _ *analyze.Budget) (*goroutines.Report, error) {
			t, err := s.loadGoroutineDump(ctx, target)
			if err != nil {
				return nil, err
			}
			var b *goroutines.Dump
			if base != "" {
				if b, err = s.loadGoroutineDump(ctx, base); err != nil {
					return nil, err
				}
			}
			if split == goroutines.SplitCreator && b == nil {
				return goroutines.NewReportByCreator(t), nil
			}
			return goroutines.NewReport(t, b), nil
		}})
}

// planGoroutines makes a goroutines report of one dump and a comparison of two or
// more (the first against the last). Every file is parsed, so nothing is stored
// for a bad one. Dumps go by the time they were taken when all of them say it (a
// goroutine profile.proto does, text dumps do not), else by upload order.
func (s *Server) planGoroutines(form *kind.Upload) (*kind.Plan, error) {
	dumps := make([]*goroutines.Dump, len(form.Files))
	for i, f := range form.Files {
		d, err := s.parseReceivedGoroutineDump(f)
		if err != nil {
			return nil, err
		}
		dumps[i] = d
	}
	timed := true
	for _, d := range dumps {
		timed = timed && !d.Time.IsZero()
	}
	if timed && len(dumps) > 1 {
		order := make([]int, len(dumps))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return dumps[order[a]].Time.Before(dumps[order[b]].Time) })
		files := make([]*kind.Received, len(order))
		sorted := make([]*goroutines.Dump, len(order))
		for i, k := range order {
			files[i], sorted[i] = form.Files[k], dumps[k]
		}
		form.Files, dumps = files, sorted
	}
	rk := kindGoroutines
	var base *goroutines.Dump
	if len(dumps) > 1 {
		rk, base = kindGoroutinesDiff, dumps[0]
	}
	return &kind.Plan{
		Kind:    rk,
		Params:  map[string]any{"ordered_by": goroutineOrder(timed, len(dumps))},
		Summary: goroutineSummaryOf(dumps[len(dumps)-1], base, len(dumps)),
	}, nil
}

func goroutineOrder(timed bool, n int) string {
	switch {
	case n == 1:
		return ""
	case timed:
		return "dump time"
	}
	return "upload order"
}
