package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/web/view"
)

// kindsURL is the page that lists every kind of input leakui accepts, /kinds:
// the details behind a 415.
const kindsURL = "/kinds"

// detailsTable names, for the sentinel errors whose one-line message cannot say
// everything, the page that does.
var detailsTable = []struct {
	err  error
	path string
}{
	{analyze.ErrUnsupportedKind, kindsURL},
}

// detailsOf returns the path of the page that explains err further, or "".
func detailsOf(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Details != "" {
		return e.Details
	}
	for _, row := range detailsTable {
		if errors.Is(err, row.err) {
			return row.path
		}
	}
	return ""
}

// oneLine folds a message onto one line: an error names files, and a file name
// or a parser's message may carry line breaks.
func oneLine(msg string) string {
	return strings.Join(strings.Fields(msg), " ")
}

// acceptedNames names the kinds leakui accepts in a few words each ("pprof
// profiles, Go goroutine dumps, …"), for a 415 that links to /kinds for the rest.
func (k *kindRegistry) acceptedNames() string {
	names := make([]string, len(k.accepted))
	for i, a := range k.accepted {
		name, _, _ := strings.Cut(a, ":")
		names[i] = name
	}
	if len(names) > 1 {
		names[len(names)-1] = "and " + strings.ToLower(names[len(names)-1][:1]) + names[len(names)-1][1:]
	}
	return strings.Join(names, ", ")
}

// handleKinds is GET /kinds: what leakui accepts, one line per kind, as a page
// or as JSON ({"accepted": […]}).
func (s *Server) handleKinds(w http.ResponseWriter, r *http.Request) error {
	if wantsJSON(r) {
		return writeJSON(w, http.StatusOK, map[string][]string{"accepted": s.kinds.accepted})
	}
	return s.render(w, r, http.StatusOK, view.Page{Title: "what leakui accepts", Nav: "upload"}, view.KindsPage(s.kinds.accepted))
}
