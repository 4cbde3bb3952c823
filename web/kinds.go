package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/kind"
)

// reportKind is how one kind of report is shown: as a page, as JSON (filling
// doc.Analysis or a dedicated field) and as Markdown. Each kind registers itself in
// reportKinds from the file that implements it.
type reportKind struct {
	show     func(s *Server, w http.ResponseWriter, r *http.Request, rep *store.Report) error
	json     func(s *Server, r *http.Request, rep *store.Report, doc *kind.ReportJSON) error
	markdown func(s *Server, w io.Writer, r *http.Request, rep *store.Report) error
	// summary renders the stored summary (store.Report.Summary) as one line for
	// the dashboard's list of recent reports; nil shows none.
	summary func(raw json.RawMessage) string
}

// planner turns an upload whose files are all of one analyze kind into a report
// plan; it validates every file (parsing it) so nothing is stored for a bad one, and
// may reorder form.files.
type planner func(s *Server, form *kind.Upload) (*kind.Plan, error)

// inputKind is one kind of evidence leakui accepts by upload: what the upload
// pages say of it, the planner that turns files of that kind into a report, and the
// report kinds it makes with their views.
type inputKind struct {
	kind     analyze.Kind
	plan     planner
	reports  []string // the report kinds (store.Report.Kind) it makes
	views    reportKind
	accepted []string // lines for the upload page and the unsupported-kind message
}

// inputKinds lists every kind of evidence leakui accepts, in the order the upload
// page and errors name them: pprof profiles first (the most common input), then Go
// goroutine dumps, the JVM's outputs, capture bundles, and logs, the kind any other
// text is.
func (s *Server) inputKinds() []kind.Kind {
	// Each entry: the kind, its planner, the report kinds it makes, their views
	// (page, JSON, Markdown, one-line summary), and what the upload page says of it.
	return []kind.Kind{
		s.profileKind,
		s.goroutineKind,
		s.histogramsKind,
		s.threadsKind,
		s.nmtKind,
		s.heapDumps,
		s.bundlesKind,
	}
}

// kindAdapter is a kind of evidence still implemented in package web: its
// planner and views, called with the server.
type kindAdapter struct {
	s  *Server
	in inputKind
}

func (k kindAdapter) Input() analyze.Kind { return k.in.kind }
func (k kindAdapter) Reports() []string   { return k.in.reports }
func (k kindAdapter) Accepted() []string  { return k.in.accepted }

func (k kindAdapter) Plan(ctx context.Context, up *kind.Upload) (*kind.Plan, error) {
	up.Ctx = ctx
	return k.in.plan(k.s, up)
}

func (k kindAdapter) Page(w http.ResponseWriter, r *http.Request, rep *store.Report) error {
	return k.in.views.show(k.s, w, r, rep)
}

func (k kindAdapter) JSON(r *http.Request, rep *store.Report, doc *kind.ReportJSON) error {
	return k.in.views.json(k.s, r, rep, doc)
}

func (k kindAdapter) Markdown(w io.Writer, r *http.Request, rep *store.Report) error {
	return k.in.views.markdown(k.s, w, r, rep)
}

func (k kindAdapter) Summary(raw json.RawMessage) string {
	if k.in.views.summary == nil {
		return ""
	}
	return k.in.views.summary(raw)
}

// newKindRegistry builds the one dispatch on kinds, in the order of inputKinds
// and then the lab's run reports.
func (s *Server) newKindRegistry() *kind.Registry {
	kinds := append(s.inputKinds(), s.logs)
	kinds = append(kinds, kindAdapter{s, inputKind{reports: []string{kindRun}, views: runReportKind()}})
	return kind.NewRegistry(kinds...)
}
