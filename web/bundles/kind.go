package bundles

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/snapshot"
)

// ReportKind is the store.Report.Kind of a capture bundle report.
const ReportKind = kindCapture

// Kind is leakui's capture bundles as a kind of evidence: uploads of bundles
// (leakui capture jvm|go), one bundle or a comparison of several of one
// process, and their pages, JSON and Markdown.
type Kind struct {
	d   *kind.Deps
	jvm *snapshot.Loader
}

// New is the capture bundles kind over d, parsing through the JVM cache of jvm.
func New(d *kind.Deps, jvm *snapshot.Loader) *Kind { return &Kind{d: d, jvm: jvm} }

// Input is analyze.KindCapture.
func (s *Kind) Input() analyze.Kind { return analyze.KindCapture }

// Reports is the one report kind, "capture".
func (s *Kind) Reports() []string { return []string{kindCapture} }

// Accepted is the upload page's line for capture bundles.
func (s *Kind) Accepted() []string {
	return []string{"leakui capture bundles (leakui capture jvm PID, leakui capture go URL; .tar.gz): one bundle is one report; two or more bundles of one process compare, oldest first — for a JVM, the native memory it does not track (RSS beyond NMT and the heap) with the java.util.zip.Inflater alive"}
}

// Plan parses every uploaded bundle (see planCaptures).
func (s *Kind) Plan(ctx context.Context, up *kind.Upload) (*kind.Plan, error) {
	up.Ctx = ctx
	return s.planCaptures(up)
}

// Page renders a capture report.
func (s *Kind) Page(w http.ResponseWriter, r *http.Request, rep *store.Report) error {
	return s.showCapture(w, r, rep)
}

// JSON fills a capture report's JSON twin.
func (s *Kind) JSON(r *http.Request, rep *store.Report, doc *kind.ReportJSON) error {
	return s.captureJSONOf(r, rep, doc)
}

// Markdown writes a capture report's Markdown summary.
func (s *Kind) Markdown(w io.Writer, r *http.Request, rep *store.Report) error {
	return s.captureMarkdown(w, r, rep)
}

// Summary is the dashboard's line for a capture report.
func (s *Kind) Summary(raw json.RawMessage) string { return captureSummaryLine(raw) }
