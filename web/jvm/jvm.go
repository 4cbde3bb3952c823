package jvm

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

// NMT is the JVM's native memory tracking as a kind of evidence: uploads of
// jcmd VM.native_memory summaries (or summary.diff), one report or a diff of
// two, and their pages, JSON and Markdown.
type NMT struct {
	d   *kind.Deps
	jvm *snapshot.Loader
}

// NewNMT is the native memory kind over d, parsing through the JVM cache of jvm.
func NewNMT(d *kind.Deps, jvm *snapshot.Loader) *NMT { return &NMT{d: d, jvm: jvm} }

// The report kinds of native memory tracking.
const (
	ReportNMT     = kindJVMNMT
	ReportNMTDiff = kindJVMNMTDiff
)

// Input is analyze.KindJVMNMT.
func (s *NMT) Input() analyze.Kind { return analyze.KindJVMNMT }

// Reports are "jvm-nmt" and "jvm-nmt-diff".
func (s *NMT) Reports() []string { return []string{kindJVMNMT, kindJVMNMTDiff} }

// Accepted is the upload page's line for native memory reports.
func (s *NMT) Accepted() []string {
	return []string{"JVM native memory tracking: jcmd VM.native_memory summary or summary.diff, in any scale (two make a diff)"}
}

// Plan parses every uploaded report (see planJVMNMT).
func (s *NMT) Plan(ctx context.Context, up *kind.Upload) (*kind.Plan, error) {
	up.Ctx = ctx
	return s.planJVMNMT(up)
}

// Page renders a native memory report.
func (s *NMT) Page(w http.ResponseWriter, r *http.Request, rep *store.Report) error {
	return s.showJVMNMT(w, r, rep)
}

// JSON fills a native memory report's JSON twin.
func (s *NMT) JSON(r *http.Request, rep *store.Report, doc *kind.ReportJSON) error {
	return s.jvmNMTJSONOf(r, rep, doc)
}

// Markdown writes a native memory report's Markdown summary.
func (s *NMT) Markdown(w io.Writer, r *http.Request, rep *store.Report) error {
	return s.jvmNMTMarkdown(w, r, rep)
}

// Summary is the dashboard's line for a native memory report.
func (s *NMT) Summary(raw json.RawMessage) string { return jvmNMTSummaryLine(raw) }
