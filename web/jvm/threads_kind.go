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

// Threads is the JVM's thread dumps as a kind of evidence: uploads of jstack,
// jcmd Thread.print or SIGQUIT output, one dump or a diff of two, and their
// pages, JSON and Markdown.
type Threads struct {
	d   *kind.Deps
	jvm *snapshot.Loader
}

// NewThreads is the thread dumps kind over d, parsing through the JVM cache of
// jvm.
func NewThreads(d *kind.Deps, jvm *snapshot.Loader) *Threads { return &Threads{d: d, jvm: jvm} }

// The report kinds of thread dumps.
const (
	ReportThreads     = kindJVMThreads
	ReportThreadsDiff = kindJVMThreadsDiff
)

// Input is analyze.KindJVMThreads.
func (s *Threads) Input() analyze.Kind { return analyze.KindJVMThreads }

// Reports are "jvm-threads" and "jvm-threads-diff".
func (s *Threads) Reports() []string { return []string{kindJVMThreads, kindJVMThreadsDiff} }

// Accepted is the upload page's line for thread dumps.
func (s *Threads) Accepted() []string {
	return []string{"JVM thread dumps: jstack, jcmd Thread.print, SIGQUIT output in a log, JDK 5 to 25 (two make a diff of new and grown groups)"}
}

// Plan parses every uploaded dump (see planJVMThreads).
func (s *Threads) Plan(ctx context.Context, up *kind.Upload) (*kind.Plan, error) {
	up.Ctx = ctx
	return s.planJVMThreads(up)
}

// Page renders a thread dump report.
func (s *Threads) Page(w http.ResponseWriter, r *http.Request, rep *store.Report) error {
	return s.showJVMThreads(w, r, rep)
}

// JSON fills a thread dump report's JSON twin.
func (s *Threads) JSON(r *http.Request, rep *store.Report, doc *kind.ReportJSON) error {
	return s.jvmThreadsJSONOf(r, rep, doc)
}

// Markdown writes a thread dump report's Markdown summary.
func (s *Threads) Markdown(w io.Writer, r *http.Request, rep *store.Report) error {
	return s.jvmThreadsMarkdown(w, r, rep)
}

// Summary is the dashboard's line for a thread dump report.
func (s *Threads) Summary(raw json.RawMessage) string { return jvmThreadsSummaryLine(raw) }
