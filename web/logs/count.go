package logs

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/leakui/leakui/analyze"
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
	sources := make([]kind.Source, len(arts))
	for i, a := range arts {
		hashes[i], names[i] = a.SHA256, a.Name
		src := kind.Stored(k.d.Store, a.SHA256, a.Name)
		open := src.Open
		src.Open = func(ctx context.Context) (io.ReadCloser, error) {
			body, err := open(ctx)
			if err != nil {
				return nil, err
			}
			return logReadCloser{body}, nil
		}
		sources[i] = src
	}
	return k.count(ctx, logCacheKey(hashes, names, p, k.d.Limits.MaxDecompressed), sources, p)
}

// logCountReceived counts an upload's spooled files (plain files are split
// across the cores) and caches the result under the hashes they are stored
// by, so the report's first view is immediate.
func (k *Kind) logCountReceived(ctx context.Context, files []*kind.Received, p Params) (*logs.Report, error) {
	hashes, names := make([]string, len(files)), make([]string, len(files))
	sources := make([]kind.Source, len(files))
	for i, f := range files {
		hashes[i], names[i] = f.SHA256, f.Name
		sources[i] = f.Source()
	}
	return k.count(ctx, logCacheKey(hashes, names, p, k.d.Limits.MaxDecompressed), sources, p)
}

// logReadCloser hides everything but Read and Close of a stored artifact's
// reader, so the engine streams it.
type logReadCloser struct{ rc io.ReadCloser }

func (r logReadCloser) Read(p []byte) (int, error) { return r.rc.Read(p) }
func (r logReadCloser) Close() error               { return r.rc.Close() }

// count counts the sources with p's options, once per key however many ask at
// the same time, from the cache when it is there.
func (k *Kind) count(ctx context.Context, key string, sources []kind.Source, p Params) (*logs.Report, error) {
	return kind.Load(ctx, &k.d, k.reports, kind.Parse[*logs.Report]{
		Key:     key,
		Sources: sources,
		Run: func(ctx context.Context, in []io.Reader, b *analyze.Budget) (*logs.Report, error) {
			inputs := make([]logs.Input, len(in))
			for i, r := range in {
				inputs[i] = logs.Input{Name: sources[i].Name, Reader: r}
			}
			o := p.options(k.d.Limits.MaxDecompressed)
			o.Budget = b
			return logs.Count(ctx, o, inputs...)
		},
	})
}

// logReportCost is what a cached log count is charged to the server's memory
// budget: its tables (patterns, pairs and their unclosed keys, buckets, files,
// the overview) estimated by jsonCost.
func logReportCost(r *logs.Report) int64 { return kind.JSONCost(r) }

// logCacheBytes bounds what the cache of counted log reports keeps.
const logCacheBytes = 64 << 20
