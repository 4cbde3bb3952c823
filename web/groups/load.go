package groups

import (
	"context"
	"io"
	"strconv"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/goroutines"
	"github.com/leakui/leakui/web/kind"
)

// Parsed goroutine dumps and their grouped reports are cached by artifact hash
// (and the decompression limit they were read with), like the profiles: a report
// viewed many times, or a 50,000-goroutine dump paged through, is parsed and
// grouped once. The caches (Dumps) are charged to the server's memory budget: a
// dump costs what its parse charged (Dump.MemSize), a report its estimate
// (Report.MemSize).

// goroutineDumpCacheBytes bounds what each of the caches of parsed dumps and of
// their reports keeps: a few dumps of millions of goroutines must not stay
// pinned.
const goroutineDumpCacheBytes = 256 << 20

func goroutineDumpKey(sha string, limit int64) string {
	return sha + "/" + strconv.FormatInt(limit, 10)
}

// Dumps loads goroutine dumps and groups them, through two caches charged to
// the server's memory budget: parsed dumps, and their grouped reports.
type Dumps struct {
	d       *kind.Deps
	dumps   *kind.Cache[*goroutines.Dump]
	reports *kind.Cache[*goroutines.Report]
}

// NewDumps registers the caches of dumps and of their reports in d.Caches.
func NewDumps(d *kind.Deps) *Dumps {
	return &Dumps{d: d,
		dumps:   kind.Register(d.Caches, "goroutine dumps", kind.NewSizedCache(8, goroutineDumpCacheBytes, (*goroutines.Dump).MemSize)),
		reports: kind.Register(d.Caches, "goroutine reports", kind.NewSizedCache(16, goroutineDumpCacheBytes, (*goroutines.Report).MemSize)),
	}
}

// Load returns an artifact's parsed goroutine dump (a text dump or a goroutine
// profile.proto), from the cache when it is there; text is parsed as it streams
// from the store.
func (ds *Dumps) Load(ctx context.Context, sha string) (*goroutines.Dump, error) {
	return ds.dump(ctx, sha, kind.Stored(ds.d.Store, sha, ""), false)
}

// Received parses an uploaded file as it streams from its temporary file and
// caches the result under its hash; errors name the file.
func (ds *Dumps) Received(f *kind.Received) (*goroutines.Dump, error) {
	return ds.dump(context.Background(), f.SHA256, f.Source(), true)
}

// dump loads the dump of hash sha from src.
func (ds *Dumps) dump(ctx context.Context, sha string, src kind.Source, wrap bool) (*goroutines.Dump, error) {
	limit := ds.d.Limits.MaxDecompressed
	return kind.Load(ctx, ds.d, ds.dumps, kind.Parse[*goroutines.Dump]{
		Key: goroutineDumpKey(sha, limit), Sources: []kind.Source{src}, Wrap: wrap,
		Run: func(_ context.Context, in []io.Reader, b *analyze.Budget) (*goroutines.Dump, error) {
			return goroutines.ParseWithin(in[0], limit, b)
		},
	})
}

// Report groups the target artifact's dump, or compares it with the base
// artifact's when base is not "", from the cache when it is there; split is
// goroutines.SplitCreator to split one dump's groups by creating goroutine. The
// report is shared: callers must not change it (copy it to cut its groups).
func (ds *Dumps) Report(ctx context.Context, base, target, split string) (*goroutines.Report, error) {
	key := base + ">" + goroutineDumpKey(target, ds.d.Limits.MaxDecompressed) + ">" + split
	return kind.Load(ctx, ds.d, ds.reports, kind.Parse[*goroutines.Report]{Key: key,
		Run: func(ctx context.Context, _ []io.Reader, _ *analyze.Budget) (*goroutines.Report, error) {
			t, err := ds.Load(ctx, target)
			if err != nil {
				return nil, err
			}
			var b *goroutines.Dump
			if base != "" {
				if b, err = ds.Load(ctx, base); err != nil {
					return nil, err
				}
			}
			if split == goroutines.SplitCreator && b == nil {
				return goroutines.NewReportByCreator(t), nil
			}
			return goroutines.NewReport(t, b), nil
		}})
}
