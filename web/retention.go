package web

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/leakui/leakui/web/page"
)

// handleDeleteArtifact is DELETE /api/artifacts/{sha256}: the bytes and every
// report that used them go.
func (s *Server) handleDeleteArtifact(w http.ResponseWriter, r *http.Request) error {
	sha := chi.URLParam(r, "sha256")
	n, err := s.store.DeleteArtifact(r.Context(), sha)
	if err != nil {
		return err
	}
	s.profiles.Remove(sha)
	s.flames.Clear()
	s.log.Info("artifact deleted", "sha256", sha, "reports", n, "client", page.ClientIP(r))
	return page.JSON(w, http.StatusOK, map[string]any{"deleted": sha, "reports_deleted": n})
}

// handlePin is POST (pin) and DELETE (unpin) /api/reports/{id}/pin.
func handlePin(st Store, pinned bool) page.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id := chi.URLParam(r, "id")
		if err := st.SetPinned(r.Context(), id, pinned); err != nil {
			return err
		}
		return page.JSON(w, http.StatusOK, map[string]any{"id": id, "pinned": pinned})
	}
}
