package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/background"
	"github.com/leakui/leakui/web/page"
)

// health is the state /healthz and /readyz report.
type health struct {
	Status string `json:"status"` // "ok", "degraded" (healthz) or "not ready" (readyz)
	// Reasons say what is degraded or not ready, in words.
	Reasons []string `json:"reasons,omitempty"`
	// Throttles are the request classes (uploads, downloads, pages,
	// api_reads), each with its own throttle.
	Throttles map[string]throttleState `json:"throttles"`
	// Runs are the lab's runs going here, of at most MaxRuns (0: no lab).
	Runs    int `json:"runs"`
	MaxRuns int `json:"max_runs"`
	// Jobs are the job queues across the replicas (heap dump analyses and,
	// with watches, scrapes and alerts), on /readyz.
	Jobs []background.QueueState `json:"jobs,omitempty"`
}

// throttleState is one class's throttle: busy of limit slots, and how many
// requests wait for one (at most backlog).
type throttleState struct {
	Busy    int64 `json:"busy"`
	Limit   int   `json:"limit"`
	Waiting int64 `json:"waiting"`
	Backlog int   `json:"backlog"`
	// PerClient is the most slots of the class one client address may hold,
	// PerClientQueued the most requests it may have going or waiting.
	PerClient       int `json:"per_client"`
	PerClientQueued int `json:"per_client_queued"`
}

// health measures the server's load: a class's throttle is saturated when
// every slot is busy; the lab is full when MaxRuns are going.
func (s *Server) health() health {
	h := health{Throttles: map[string]throttleState{}}
	for _, c := range s.throttles.all() {
		busy, waiting := c.load()
		h.Throttles[c.key] = throttleState{Busy: int64(busy), Limit: c.slots, Waiting: int64(waiting), Backlog: c.backlog,
			PerClient: c.share, PerClientQueued: c.queue}
		if busy >= c.slots {
			h.Reasons = append(h.Reasons, c.String())
		}
	}
	if s.lab != nil {
		h.Runs, h.MaxRuns = s.lab.Running(), s.lab.MaxRuns()
		if h.Runs >= h.MaxRuns {
			h.Reasons = append(h.Reasons, fmt.Sprintf("the lab is full: %d of %d runs (-max-runs)", h.Runs, h.MaxRuns))
		}
	}
	h.Status = "ok"
	if len(h.Reasons) > 0 {
		h.Status = "degraded"
	}
	return h
}

// handleHealthz is GET /healthz, the liveness check: 200 while the process
// serves, with "ok" or "degraded" and why (a saturated throttle, a full lab),
// as text or, asked for JSON, as a document. It does not fail when degraded:
// restarting a busy server would not help.
func (s *Server) handleHealthz(w http.ResponseWriter, r *http.Request) error {
	return writeHealth(w, r, http.StatusOK, s.health())
}

// handleReadyz is GET /readyz, for load balancers: 503 while the server
// shuts down, cannot reach its store, or has a class whose slots are all busy
// with requests waiting for them (send new ones elsewhere); 200 otherwise.
// Requests that wait only because their address has its share of a class
// (throttles.go) do not count: another client would be served at once.
func (s *Server) handleReadyz(w http.ResponseWriter, r *http.Request) error {
	h := s.health()
	var reasons []string
	select {
	case <-s.closing:
		reasons = append(reasons, "the server is shutting down")
	default:
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	_, err := s.store.SearchReports(ctx, store.ReportSearch{Limit: 1})
	if err != nil {
		s.log.Warn("readyz: the store does not answer", "err", err)
		reasons = append(reasons, "the store does not answer")
	}
	if h.Jobs, err = s.background.Queues(ctx); err != nil {
		s.log.Warn("readyz: the job queues do not answer", "err", err)
	}
	for _, c := range s.throttles.all() {
		if st := h.Throttles[c.key]; st.Waiting > 0 && st.Busy >= int64(st.Limit) {
			reasons = append(reasons, fmt.Sprintf("requests waiting for the %s throttle: %d", c.name, st.Waiting))
		}
	}
	if len(reasons) > 0 {
		h.Status, h.Reasons = "not ready", reasons
		return writeHealth(w, r, http.StatusServiceUnavailable, h)
	}
	h.Status, h.Reasons = "ok", nil
	return writeHealth(w, r, http.StatusOK, h)
}

// writeHealth answers a health check as JSON or as one line of text.
func writeHealth(w http.ResponseWriter, r *http.Request, status int, h health) error {
	w.Header().Set("Cache-Control", "no-store")
	if page.WantsJSON(r) {
		return page.JSON(w, status, h)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	line := h.Status
	for i, reason := range h.Reasons {
		sep := "; "
		if i == 0 {
			sep = ": "
		}
		line += sep + reason
	}
	_, err := io.WriteString(w, line)
	return err
}
