package kind

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/store"
)

// Kind is one kind of evidence: what an upload of it becomes, and how its
// reports are shown. Every method but Plan is called with a report of one of its
// Reports() kinds; the root dispatches (Registry), nothing else does.
type Kind interface {
	// Input is the analyze.Kind of the files Plan accepts ("" for a kind no
	// upload makes: the run report). Reports are the store.Report.Kind values it
	// shows. Accepted are its lines on the upload page, /kinds and in a 415.
	Input() analyze.Kind
	Reports() []string
	Accepted() []string

	// Plan checks every file of an upload of its kind (parsing it, which may fill
	// a cache), may reorder up.Files, and returns the report they make. Nothing is
	// stored for a file Plan refuses.
	Plan(ctx context.Context, up *Upload) (*Plan, error)
	// Page renders GET /r/{id} of a complete report.
	Page(w http.ResponseWriter, r *http.Request, rep *store.Report) error
	// JSON fills the JSON twin (GET /api/reports/{id}); the root has set the
	// fields every report has (id, kind, urls, params, summary, artifacts).
	JSON(r *http.Request, rep *store.Report, doc *ReportJSON) error
	// Markdown writes /r/{id}.md; the root adds the label line.
	Markdown(w io.Writer, r *http.Request, rep *store.Report) error
	// Summary is the dashboard's one line for a stored summary, "" for none.
	Summary(raw json.RawMessage) string
}

// ViewCoster is a kind whose views hold, while they render, memory that no cache
// accounts for: the root charges ViewCost to the server's memory budget before a
// page, JSON or Markdown view of rep starts (503 when it has no room).
type ViewCoster interface {
	ViewCost(rep *store.Report) int64
}

// Registry is the one dispatch on kinds: by the analyze.Kind of an upload's
// files and by a stored report's kind, in the order the kinds were registered
// (the order of /kinds, the upload page and the 415 message).
type Registry struct {
	kinds    []Kind
	inputs   map[analyze.Kind]Kind
	reports  map[string]Kind
	accepted []string
}

// NewRegistry registers kinds in order; two kinds of one input or report kind
// are a programming error and panic at start.
func NewRegistry(kinds ...Kind) *Registry {
	r := &Registry{kinds: kinds, inputs: map[analyze.Kind]Kind{}, reports: map[string]Kind{}}
	for _, k := range kinds {
		if in := k.Input(); in != "" {
			if _, dup := r.inputs[in]; dup {
				panic("web: input kind " + string(in) + " is registered twice")
			}
			r.inputs[in] = k
		}
		r.accepted = append(r.accepted, k.Accepted()...)
		for _, rk := range k.Reports() {
			if _, dup := r.reports[rk]; dup {
				panic("web: report kind " + rk + " is registered twice")
			}
			r.reports[rk] = k
		}
	}
	return r
}

// Planner is the kind that plans uploads of files of input kind in.
func (r *Registry) Planner(in analyze.Kind) (Kind, bool) {
	k, ok := r.inputs[in]
	return k, ok
}

// For is the kind that shows reports of kind reportKind.
func (r *Registry) For(reportKind string) (Kind, bool) {
	k, ok := r.reports[reportKind]
	return k, ok
}

// Accepted is what leakui accepts, one line per kind of input, in order.
func (r *Registry) Accepted() []string { return r.accepted }

// AcceptedNames names the kinds leakui accepts in a few words each ("pprof
// profiles, Go goroutine dumps, …"), for a 415 that links to /kinds for the rest.
func (r *Registry) AcceptedNames() string {
	names := make([]string, len(r.accepted))
	for i, a := range r.accepted {
		name, _, _ := strings.Cut(a, ":")
		names[i] = name
	}
	if len(names) > 1 {
		names[len(names)-1] = "and " + strings.ToLower(names[len(names)-1][:1]) + names[len(names)-1][1:]
	}
	return strings.Join(names, ", ")
}

// ViewCost is what a view of rep may hold while it renders (ViewCoster), 0 for a
// kind that charges its own work as it goes.
func (r *Registry) ViewCost(rep *store.Report) int64 {
	if k, ok := r.reports[rep.Kind].(ViewCoster); ok {
		return k.ViewCost(rep)
	}
	return 0
}

// Lister is a kind whose reports the dashboard lists and finds by more than
// their first input's name and headline: Listing gives, from a stored summary,
// the title to list a report by ("12 heap snapshots · heap-00…heap-11"; "" keeps
// its first input's name) and the words search finds it by (the top functions,
// suspects and classes its page shows, space separated).
type Lister interface {
	Listing(raw json.RawMessage) (title, terms string)
}

// Listing is a report's title and search words for the dashboard (Lister); ""
// and "" for a kind without them.
func (r *Registry) Listing(reportKind string, raw json.RawMessage) (title, terms string) {
	if k, ok := r.reports[reportKind].(Lister); ok {
		return k.Listing(raw)
	}
	return "", ""
}

// Charter is a kind whose reports have chart images of their own,
// /r/{id}/charts/{file}.
type Charter interface {
	Chart(w http.ResponseWriter, r *http.Request, rep *store.Report, file string) error
}
