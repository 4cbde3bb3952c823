package runs

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/groups"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/view"
)

// Kind is the lab's runs: their pages, API, events and charts (/runs/…,
// /api/runs/…, /captures), and the report a run makes when it ends, a kind of
// evidence no upload makes.
type Kind struct {
	d *kind.Deps
	Parts
}

// Parts are what a run shows of other kinds of evidence and what the root
// gives the lab; the root wires them, so that runs imports no other kind.
type Parts struct {
	// Lab runs the reproductions (nil when the lab is off); Targets are the
	// live pprof endpoints an operator allows captures from.
	Lab     *lab.Manager
	Targets lab.Targets
	// RunLimit is the per-client rate limit of starting runs and captures.
	RunLimit func(http.Handler) http.Handler
	// Profiles loads a stored profile (the heap and goroutine series of a run).
	Profiles interface {
		Load(ctx context.Context, sha string) (*pprof.Profile, error)
	}
	// Goroutines loads a stored goroutine dump (the goroutines a run proved leaked).
	Goroutines *groups.Dumps
	// Logs counts a run's own log with its workload's preset.
	Logs LogPart
	// JVM is what a jvm run captured of its JVM, shown with the JVM kinds'
	// figures.
	JVM JVMPart
	// ReportMarkdown is a stored report's Markdown as /r/{id}.md writes it, with
	// its label line.
	ReportMarkdown func(r *http.Request, rep *store.Report) ([]byte, error)
}

// LogPart is a run's own log, counted like a log report.
type LogPart interface {
	RunLog(ctx context.Context, runID string, spec lab.Spec) (*view.RunLogView, error)
	CountRunLog(w http.ResponseWriter, r *http.Request) error
}

// JVMPart reads what a jvm run captured of its JVM.
type JVMPart interface {
	// Of is what the captures of run runID say, with the reports made of them
	// by reportID; nil when the run captured nothing of a JVM.
	Of(ctx context.Context, runID, reportID string) (RunJVM, error)
}

// RunJVM is what a jvm run's captures say, as its page, JSON and Markdown
// show it.
type RunJVM interface {
	View() *view.RunJVM
	JSON() any
	Markdown(w io.Writer, r *http.Request)
}

// New is the runs kind over d with the parts the root wires.
func New(d *kind.Deps, p Parts) *Kind { return &Kind{d: d, Parts: p} }

// Input is none: no upload makes a run's report.
func (s *Kind) Input() analyze.Kind { return "" }

// Reports is the run's report.
func (s *Kind) Reports() []string { return []string{ReportKind} }

// Accepted is none: runs are started, not uploaded.
func (s *Kind) Accepted() []string { return nil }

// Plan refuses: no upload makes a run's report.
func (s *Kind) Plan(ctx context.Context, up *kind.Upload) (*kind.Plan, error) {
	return nil, fmt.Errorf("a run's report is made by the lab, not by an upload")
}

// Page renders /r/{id} of a run's report: the run's page.
func (s *Kind) Page(w http.ResponseWriter, r *http.Request, rep *store.Report) error {
	return s.showRunReport(w, r, rep)
}

// JSON fills the JSON twin of a run's report.
func (s *Kind) JSON(r *http.Request, rep *store.Report, doc *kind.ReportJSON) error {
	return s.runReportJSON(r, rep, doc)
}

// Markdown writes the ticket summary of a run.
func (s *Kind) Markdown(w io.Writer, r *http.Request, rep *store.Report) error {
	return s.runReportMarkdown(w, r, rep)
}

// Summary is the dashboard's line for a run's report: its title and verdict.
func (s *Kind) Summary(raw json.RawMessage) string {
	var sum struct {
		Title   string `json:"title"`
		Status  string `json:"status"`
		Verdict string `json:"verdict"`
	}
	if json.Unmarshal(raw, &sum) != nil {
		return ""
	}
	return fmt.Sprintf("%s: %s", sum.Title, verdictWord(sum.Verdict, sum.Status))
}
