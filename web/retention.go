package web

import (
	"context"
	"net/http"
	"time"

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
func (s *Server) handlePin(pinned bool) page.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id := chi.URLParam(r, "id")
		if err := s.store.SetPinned(r.Context(), id, pinned); err != nil {
			return err
		}
		return page.JSON(w, http.StatusOK, map[string]any{"id": id, "pinned": pinned})
	}
}

// startRetention deletes unpinned reports older than retain, every hour (and once
// at start), with the files nothing refers to any more.
func (s *Server) startRetention(retain time.Duration) {
	s.retentionStop, s.retentionDone = make(chan struct{}), make(chan struct{})
	expire := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		reports, artifacts, err := s.store.ExpireReports(ctx, time.Now().Add(-retain))
		if err != nil {
			s.log.Warn("retention", "err", err)
			return
		}
		if reports+artifacts > 0 {
			s.profiles.Clear()
			s.flames.Clear()
			s.log.Info("retention expired old reports", "reports", reports, "artifacts", artifacts, "older_than", retain)
		}
	}
	go func() {
		defer close(s.retentionDone)
		expire()
		t := time.NewTicker(time.Hour)
		defer t.Stop()
		for {
			select {
			case <-s.retentionStop:
				return
			case <-t.C:
				expire()
			}
		}
	}()
}
