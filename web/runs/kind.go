package runs

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/capture"
	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/groups"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/snapshot"
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
	// Profiles loads a stored profile (the heap and goroutine series of a run)
	// and makes a capture run's report; ProfileCache keeps the profiles the
	// recorder checked as they arrived.
	Profiles interface {
		Load(ctx context.Context, sha string) (*pprof.Profile, error)
		CaptureReport(ctx context.Context, runID string, spec lab.Spec, all []store.RunArtifact) (string, error)
	}
	ProfileCache *kind.Cache[*pprof.Profile]
	// Goroutines loads a stored goroutine dump (the goroutines a run proved leaked).
	Goroutines *groups.Dumps
	// Logs counts a run's own log with its workload's preset.
	Logs LogPart
	// JVMCache parses what a jvm run captured of its JVM, cached as the JVM
	// kinds' uploads are; Figures draws it with those kinds' figures.
	JVMCache *snapshot.Loader
	Figures  JVMFigures
	// ReportMarkdown is a stored report's Markdown as /r/{id}.md writes it, with
	// its label line.
	ReportMarkdown func(r *http.Request, rep *store.Report) ([]byte, error)
}

// LogPart is a run's own log, counted like a log report.
type LogPart interface {
	RunLog(ctx context.Context, runID string, spec lab.Spec) (*view.RunLogView, error)
	CountRunLog(w http.ResponseWriter, r *http.Request) error
}

// JVMFigures are what the JVM kinds (web/jvm, web/bundles) plan and draw of
// what a jvm run captured of its JVM: the run's page, JSON and Markdown show
// it, and its report makes their reports of it, as an upload of the same files
// would.
type JVMFigures struct {
	// NMTPrefix keys native memory summaries in the JVM cache; NMTPlan is the
	// report they make; NMTFigures, NMTDiffFigures and NativeLeak draw one or
	// first → last.
	NMTPrefix      string
	NMTPlan        func(ns []*jvm.NMT, params snapshot.Params) *kind.Plan
	NMTFigures     func(n *jvm.NMT) []view.JVMFigure
	NMTDiffFigures func(d *jvm.NMTDiff) []view.JVMFigure
	NativeLeak     func(d *jvm.NMTDiff) *view.JVMNativeLeakView
	// HistogramPlan is the report class histograms make.
	HistogramPlan func(hs []*jvm.Histogram, params snapshot.Params, nameOf func(i int) string) (*kind.Plan, error)
	// CaptureKind is the report kind of capture bundles, CapturePrefix their
	// key in the JVM cache, ParseCapture their parser; CaptureSummary is their
	// report's summary, CaptureFigures their figures, CaptureJSON their part
	// of the run's JSON (files, the summary, the report's URL) and
	// CaptureFacts what the run's Markdown says of them.
	CaptureKind    string
	CapturePrefix  string
	ParseCapture   func(r io.Reader, b *analyze.Budget) (*capture.Capture, error)
	CaptureSummary func(c *capture.Report) any
	CaptureFigures func(j *jvm.NativeReport) []view.JVMFigure
	CaptureJSON    func(files []string, c *capture.Report, reportURL string) any
	CaptureFacts   func(c *capture.Report) CaptureFacts
}

// CaptureFacts are what a run's Markdown says of its capture bundles.
type CaptureFacts struct {
	Sentence                  string
	UntrackedNativeDeltaBytes *int64
	InflatersAlive            *int64
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
