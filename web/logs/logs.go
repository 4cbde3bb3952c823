package logs

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/view"
)

// ReportKind is the store.Report.Kind of a log report.
const ReportKind = kindLog

// Kind is logs as a kind of evidence: uploads of logs, their reports' page,
// JSON, Markdown, keys.csv and charts, and the log of a lab run.
type Kind struct {
	d kind.Deps
	// reports caches the counts made, by their inputs and parameters, one count
	// of a key at a time (kind.Load).
	reports *kind.Cache[*logs.Report]
}

// New is the logs kind over d; its cache of counts is registered in d.Caches.
func New(d kind.Deps) *Kind {
	reports := kind.Register(d.Caches, "logs", kind.NewSizedCache(16, logCacheBytes, logReportCost))
	return &Kind{d: d, reports: reports}
}

// Input is analyze.KindLog: text that no other kind claims and that looks like
// a log (analyze.LogShape: at least 1 line in 5 carries a timestamp or a
// level); other text is refused at upload, naming the kinds leakui accepts.
func (k *Kind) Input() analyze.Kind { return analyze.KindLog }

// Reports is the one report kind, "log".
func (k *Kind) Reports() []string { return []string{kindLog} }

// Accepted is the upload page's line for logs.
func (k *Kind) Accepted() []string {
	return []string{"Logs: text logs (at least 1 line in 5 with a timestamp or a level), plain, gzip or zstd, counted like grep -c: patterns (literal or RE2), start/close pairs with the keys never closed, counts over time, and presets for SAMZA-2785, Kafka consumer groups and KAFKA-3933"}
}

// Plan counts every uploaded log (see planLogs).
func (k *Kind) Plan(ctx context.Context, up *kind.Upload) (*kind.Plan, error) {
	up.Ctx = ctx
	return k.planLogs(up)
}

// Page renders a log report.
func (k *Kind) Page(w http.ResponseWriter, r *http.Request, rep *store.Report) error {
	return k.showLog(w, r, rep)
}

// JSON fills a log report's JSON twin.
func (k *Kind) JSON(r *http.Request, rep *store.Report, doc *kind.ReportJSON) error {
	return k.logJSONOf(r, rep, doc)
}

// Markdown writes a log report's Markdown summary.
func (k *Kind) Markdown(w io.Writer, r *http.Request, rep *store.Report) error {
	return k.logMarkdown(w, r, rep)
}

// Summary is the dashboard's line for a log report.
func (k *Kind) Summary(raw json.RawMessage) string { return logSummaryLine(raw) }

// Chart answers a log report's still-open chart of one pair, open-N.svg.
func (k *Kind) Chart(w http.ResponseWriter, r *http.Request, rep *store.Report, file string) error {
	return k.logChartImage(w, r, rep, file)
}

// KeysCSV is GET /r/{id}/keys.csv: every key a pair left open.
func (k *Kind) KeysCSV(w http.ResponseWriter, r *http.Request) error {
	return k.handleLogKeysCSV(w, r)
}

// UploadForm is the dashboard's form of patterns and presets for an upload of
// logs.
func (k *Kind) UploadForm() view.LogPatternForm { return logUploadForm() }

// RunLog is the log section of a lab run's page: its own log counted with its
// workload's preset, nil when it has none.
func (k *Kind) RunLog(ctx context.Context, runID string, spec lab.Spec) (*view.RunLogView, error) {
	return k.runLogView(ctx, runID, spec)
}

// CountRunLog is POST /runs/{id}/log: the run's log counted as a log report.
func (k *Kind) CountRunLog(w http.ResponseWriter, r *http.Request) error {
	return k.handleCountRunLog(w, r)
}

// DefaultKeyRows is how many never-closed keys a log report shows before "show all".
const DefaultKeyRows = logDefaultKeyRow
