package web

import (
	"net/http"

	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/view"
)

// handleKinds is GET /kinds: what leakui accepts, one line per kind, as a page
// or as JSON ({"accepted": […]}).
func (s *Server) handleKinds(w http.ResponseWriter, r *http.Request) error {
	if page.WantsJSON(r) {
		return page.JSON(w, http.StatusOK, map[string][]string{"accepted": s.kinds.Accepted()})
	}
	return s.render(w, r, http.StatusOK, view.Page{Title: "what leakui accepts", Nav: "upload"}, view.KindsPage(s.kinds.Accepted()))
}
