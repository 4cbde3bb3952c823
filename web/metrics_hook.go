package web

import (
	"errors"
	"net/http"
	"time"

	"github.com/leakui/leakui/analyze"
)

// Metrics is what the server tells the process's metrics (*metrics.Metrics
// is one): the work its memory budget refused, and how long each request
// waited for its class's throttle. Config.Metrics nil tells nothing.
type Metrics interface {
	// BudgetRefused counts one request refused because the server's memory
	// budget was held by other analyses (503); what is the request's
	// throttle class ("uploads", "pages", "api_reads", "downloads").
	BudgetRefused(what string)
	// ObserveThrottleWait records how long a request of class waited for a
	// slot of its throttle, whether it got one or was refused with 429.
	ObserveThrottleWait(class string, waited time.Duration)
}

// Budget is the server's memory budget, shared by the analyses in flight and
// the caches, for its used and limit gauges.
func (s *Server) Budget() *analyze.Budget { return s.budget }

// countBudgetRefusal tells the metrics of a request err refused for want of
// the server's memory budget (analyze.ErrBusy).
func (s *Server) countBudgetRefusal(r *http.Request, err error) {
	if s.cfg.Metrics == nil || !errors.Is(err, analyze.ErrBusy) {
		return
	}
	what := "pages"
	if s.throttles != nil {
		what = s.throttles.classOf(r).key
		if r.Method == http.MethodPost && (r.URL.Path == "/upload" || r.URL.Path == "/api/artifacts") {
			what = s.throttles.uploads.key
		}
	}
	s.cfg.Metrics.BudgetRefused(what)
}

// observeThrottleWait tells the metrics how long a request of class waited.
func (s *Server) observeThrottleWait(c *throttleClass, waited time.Duration) {
	if s.cfg.Metrics != nil {
		s.cfg.Metrics.ObserveThrottleWait(c.key, waited)
	}
}
