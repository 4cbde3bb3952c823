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

// Histograms is the JVM's class histograms as a kind of evidence: uploads of
// jmap -histo or jcmd GC.class_histogram output, one histogram or a diff (and
// series) of several, and their pages, JSON and Markdown.
type Histograms struct {
	d   *kind.Deps
	jvm *snapshot.Loader
}

// NewHistograms is the class histograms kind over d, parsing through the JVM
// cache of jvm.
func NewHistograms(d *kind.Deps, jvm *snapshot.Loader) *Histograms {
	return &Histograms{d: d, jvm: jvm}
}

// The report kinds of class histograms.
const (
	ReportHistogram     = kindJVMHistogram
	ReportHistogramDiff = kindJVMHistogramDiff
)

// Input is analyze.KindJVMHistogram.
func (s *Histograms) Input() analyze.Kind { return analyze.KindJVMHistogram }

// Reports are "jvm-histogram" and "jvm-histogram-diff".
func (s *Histograms) Reports() []string { return []string{kindJVMHistogram, kindJVMHistogramDiff} }

// Accepted is the upload page's line for class histograms.
func (s *Histograms) Accepted() []string {
	return []string{"JVM class histograms: jmap -histo[:live], jcmd GC.class_histogram, jmap -F, JDK 5 to 25 (two or more make a diff of what grew)"}
}

// Plan parses every uploaded histogram (see planJVMHistograms).
func (s *Histograms) Plan(ctx context.Context, up *kind.Upload) (*kind.Plan, error) {
	up.Ctx = ctx
	return s.planJVMHistograms(up)
}

// Page renders a class histogram report.
func (s *Histograms) Page(w http.ResponseWriter, r *http.Request, rep *store.Report) error {
	return s.showJVMHistograms(w, r, rep)
}

// JSON fills a class histogram report's JSON twin.
func (s *Histograms) JSON(r *http.Request, rep *store.Report, doc *kind.ReportJSON) error {
	return s.jvmHistogramsJSON(r, rep, doc)
}

// Markdown writes a class histogram report's Markdown summary.
func (s *Histograms) Markdown(w io.Writer, r *http.Request, rep *store.Report) error {
	return s.jvmHistogramsMarkdown(w, r, rep)
}

// Summary is the dashboard's line for a class histogram report.
func (s *Histograms) Summary(raw json.RawMessage) string { return jvmHistogramSummaryLine(raw) }
