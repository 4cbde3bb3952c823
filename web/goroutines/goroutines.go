package goroutines

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/groups"
	"github.com/leakui/leakui/web/kind"
)

// The report kinds a Kind shows: one dump, grouped, and a comparison of two
// dumps or more.
const (
	ReportKind     = kindGoroutines
	ReportKindDiff = kindGoroutinesDiff
)

// Kind is goroutine dumps as a kind of evidence: uploads of dumps, and the
// pages, JSON and Markdown of their reports.
type Kind struct {
	d     *kind.Deps
	dumps *groups.Dumps
}

// New is the goroutine dumps kind over d, loading dumps through dumps (which
// goroutine profiles and runs share).
func New(d *kind.Deps, dumps *groups.Dumps) *Kind { return &Kind{d: d, dumps: dumps} }

// Input is analyze.KindGoroutines.
func (k *Kind) Input() analyze.Kind { return analyze.KindGoroutines }

// Reports are "goroutines" and "goroutines-diff".
func (k *Kind) Reports() []string { return []string{kindGoroutines, kindGoroutinesDiff} }

// Accepted is the upload page's line for goroutine dumps.
func (k *Kind) Accepted() []string {
	return []string{"Go goroutine dumps: /debug/pprof/goroutine?debug=1 and debug=2, /debug/pprof/goroutineleak?debug=1 (proven leaked), panic and fatal error output, SIGQUIT dumps, runtime.Stack(buf, true); two or more dumps show what is new or grew"}
}

// Plan parses every uploaded dump (see planGoroutines).
func (k *Kind) Plan(ctx context.Context, up *kind.Upload) (*kind.Plan, error) {
	up.Ctx = ctx
	return k.planGoroutines(up)
}

// Page renders a goroutines report.
func (k *Kind) Page(w http.ResponseWriter, r *http.Request, rep *store.Report) error {
	return k.showGoroutines(w, r, rep)
}

// JSON fills a goroutines report's JSON twin.
func (k *Kind) JSON(r *http.Request, rep *store.Report, doc *kind.ReportJSON) error {
	return k.goroutinesJSON(r, rep, doc)
}

// Markdown writes a goroutines report's Markdown summary.
func (k *Kind) Markdown(w io.Writer, r *http.Request, rep *store.Report) error {
	return k.goroutinesMarkdown(w, r, rep)
}

// Summary is the dashboard's line for a goroutines report.
func (k *Kind) Summary(raw json.RawMessage) string { return goroutineSummaryLine(raw) }

// Summary is what a goroutines report stores as its summary.
type Summary = goroutineSummary
