package logs

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/kind"
)

// The server's logReports caches counted log reports by artifact hashes and
// parameters: artifacts never change, so an entry is valid for every report
// over the same files. Counting a 200 MB log takes seconds; a view from the
// cache takes milliseconds. Values are never modified. Entries are charged to
// the server's memory budget at logReportCost. Its logCounting makes
// concurrent views of a report that is not cached yet wait for one count
// instead of each counting the same files.

// logCacheKey names a count: the inputs (hash and name, as names appear in
// the report), the parameters and the decompression cap.
func logCacheKey(hashes, names []string, p Params, maxInput int64) string {
	var b strings.Builder
	for i, h := range hashes {
		b.WriteString(h)
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(names[i]))
		b.WriteByte('\n')
	}
	b.WriteString(p.Key())
	b.WriteByte('\n')
	b.WriteString(strconv.FormatInt(maxInput, 10))
	return b.String()
}

// logReportOf counts a stored log report's files with the parameters of the
// request's query, as its page, JSON, Markdown, CSV and chart images do.
func (k *Kind) logReportOf(r *http.Request, rep *store.Report) (logQuery, *logs.Report, error) {
	q, err := logQueryOf(r, rep)
	if err != nil {
		return q, nil, err
	}
	lr, err := k.logCountArtifacts(r.Context(), rep.Artifacts, q.params)
	return q, lr, err
}

// logCountArtifacts counts a stored report's files with the parameters, from
// the cache when it is there.
func (k *Kind) logCountArtifacts(ctx context.Context, arts []store.ReportArtifact, p Params) (*logs.Report, error) {
	hashes, names := make([]string, len(arts)), make([]string, len(arts))
	for i, a := range arts {
		hashes[i], names[i] = a.SHA256, a.Name
	}
	key := logCacheKey(hashes, names, p, k.d.Limits.MaxDecompressed)
	return k.flights.do(ctx, key, func() (*logs.Report, error) {
		inputs := make([]logs.Input, 0, len(arts))
		defer func() {
			for _, in := range inputs {
				in.Reader.(io.Closer).Close()
			}
		}()
		for _, a := range arts {
			body, err := k.d.Store.OpenArtifact(ctx, a.SHA256)
			if err != nil {
				return nil, err
			}
			inputs = append(inputs, logs.Input{Name: a.Name, Reader: logReadCloser{body}})
		}
		return k.countLogs(ctx, p, inputs)
	})
}

// logCountReceived counts an upload's spooled files (plain files are split
// across the cores) and caches the result under the hashes they are stored
// by, so the report's first view is immediate.
func (k *Kind) logCountReceived(ctx context.Context, files []*kind.Received, p Params) (*logs.Report, error) {
	hashes, names := make([]string, len(files)), make([]string, len(files))
	for i, f := range files {
		hashes[i], names[i] = f.SHA256, f.Name
	}
	key := logCacheKey(hashes, names, p, k.d.Limits.MaxDecompressed)
	return k.flights.do(ctx, key, func() (*logs.Report, error) {
		inputs := make([]logs.Input, 0, len(files))
		defer func() {
			for _, in := range inputs {
				in.Reader.(io.Closer).Close()
			}
		}()
		for _, f := range files {
			fh, err := os.Open(f.Path)
			if err != nil {
				return nil, err
			}
			inputs = append(inputs, logs.Input{Name: f.Name, Reader: fh})
		}
		return k.countLogs(ctx, p, inputs)
	})
}

// logReadCloser hides everything but Read and Close of a stored artifact's
// reader, so the engine streams it.
type logReadCloser struct{ rc io.ReadCloser }

func (r logReadCloser) Read(p []byte) (int, error) { return r.rc.Read(p) }
func (r logReadCloser) Close() error               { return r.rc.Close() }

// logFlights runs one count per key at a time; callers of the same key wait
// for it and share its result.
type logFlights struct {
	mu    sync.Mutex
	calls map[string]*logFlight
	// cache keeps the counts made (the server's logReports).
	cache *kind.Cache[*logs.Report]
	// joined, when it is not nil, is called each time a caller finds the count
	// of its key in flight and is about to wait for it. Tests set it to know
	// that a caller joined a flight; it is nil in production.
	joined func()
}

type logFlight struct {
	done chan struct{}
	rep  *logs.Report
	err  error
}

// do returns the cached report for key, or counts it with count (once, however
// many callers ask at the same time) and caches it. A caller whose context
// ends stops waiting; when the count itself was stopped by its caller's
// context, a waiter whose own context is alive counts again.
func (g *logFlights) do(ctx context.Context, key string, count func() (*logs.Report, error)) (*logs.Report, error) {
	for {
		if rep, ok := g.cache.Get(key); ok {
			return rep, nil
		}
		g.mu.Lock()
		if f, ok := g.calls[key]; ok {
			g.mu.Unlock()
			if g.joined != nil {
				g.joined()
			}
			select {
			case <-f.done:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			if f.err == nil {
				return f.rep, nil
			}
			if isContextError(f.err) && ctx.Err() == nil {
				continue
			}
			return nil, f.err
		}
		f := &logFlight{done: make(chan struct{})}
		g.calls[key] = f
		g.mu.Unlock()

		f.rep, f.err = count()
		if f.err == nil {
			g.cache.Add(key, f.rep)
		}
		g.mu.Lock()
		delete(g.calls, key)
		g.mu.Unlock()
		close(f.done)
		return f.rep, f.err
	}
}

func isContextError(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// countLogs counts inputs with p's options within an analysis's memory budget.
func (k *Kind) countLogs(ctx context.Context, p Params, inputs []logs.Input) (*logs.Report, error) {
	o := p.options(k.d.Limits.MaxDecompressed)
	o.Budget = k.d.Analysis()
	defer o.Budget.Release()
	return logs.Count(ctx, o, inputs...)
}

// logReportCost is what a cached log count is charged to the server's memory
// budget: its tables (patterns, pairs and their unclosed keys, buckets, files,
// the overview) estimated by jsonCost.
func logReportCost(r *logs.Report) int64 { return kind.JSONCost(r) }

// logCacheBytes bounds what the cache of counted log reports keeps.
const logCacheBytes = 64 << 20
