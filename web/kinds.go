package web

import (
	"encoding/json"
	"io"
	"net/http"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/store"
)

// reportKind is how one kind of report is shown: as a page, as JSON (filling
// doc.Analysis or a dedicated field) and as Markdown. Each kind registers itself in
// reportKinds from the file that implements it.
type reportKind struct {
	show     func(s *Server, w http.ResponseWriter, r *http.Request, rep *store.Report) error
	json     func(s *Server, r *http.Request, rep *store.Report, doc *reportJSON) error
	markdown func(s *Server, w io.Writer, r *http.Request, rep *store.Report) error
	// summary renders the stored summary (store.Report.Summary) as one line for
	// the dashboard's list of recent reports; nil shows none.
	summary func(raw json.RawMessage) string
}

// reportKinds maps a report's kind (store.Report.Kind) to its views.
var reportKinds = map[string]reportKind{}

// planner turns an upload whose files are all of one analyze kind into a report
// plan; it validates every file (parsing it) so nothing is stored for a bad one, and
// may reorder form.files. Each kind of input registers one in planners.
type planner func(s *Server, form *uploadForm) (*reportPlan, error)

// planners maps the kind of the uploaded files to the planner for them.
var planners = map[analyze.Kind]planner{}

// acceptedKinds is what the upload pages and errors say leakui accepts, in order.
var acceptedKinds []string

func init() {
	for _, k := range []string{modeSingle, modeDiff, modeSeries} {
		reportKinds[k] = reportKind{
			show:     (*Server).showProfiles,
			json:     (*Server).profilesJSON,
			markdown: (*Server).profilesMarkdown,
			summary:  profileSummaryLine,
		}
	}
	planners[analyze.KindProfile] = (*Server).planProfiles
	acceptedKinds = append(acceptedKinds,
		"pprof profiles: heap, allocs, goroutine, CPU, block, mutex, threadcreate (profile.proto, gzipped or not, and the legacy text and binary formats)")
}
