package web

import (
	"net/http"
	"strings"

	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/view"
)

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
	if page.WantsJSON(r) {
		return page.JSON(w, http.StatusOK, map[string][]string{"accepted": s.kinds.accepted})
	}
	return s.render(w, r, http.StatusOK, view.Page{Title: "what leakui accepts", Nav: "upload"}, view.KindsPage(s.kinds.accepted))
}
