package web

import (
	"fmt"
	"math"
	"runtime/debug"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/store"
)

// DefaultMemoryBudget is the memory budget of a server whose Config names none:
// half of the Go runtime's memory limit (GOMEMLIMIT, which `leakui serve` sets
// when it is not given), else 2 GiB.
func DefaultMemoryBudget() int64 {
	if limit := debug.SetMemoryLimit(-1); limit > 0 && limit < math.MaxInt64 {
		return limit / 2
	}
	return 2 << 30
}

// analysisBudget is the budget of one analysis (one profile parsed, one view
// built): half of the server's, at most kind.MaxAnalysisBudget, charged to the
// server's too. Release it when done.
func (s *Server) analysisBudget() *analyze.Budget {
	return s.deps.Analysis()
}

// viewBytes is what rendering a report's page, JSON or Markdown from its stored
// summary may hold at once, charged before it starts (see reportViewCosts): the stored summary and parameters (read from
// the store, decoded into a few times their JSON size, made into a view, and
// the output buffered before it is written) and a floor for the view's own
// work. What a view holds beyond that (parsed profiles, flame graphs) is
// charged by the caches that hold it. A report whose analysis has not
// completed shows its progress, which costs nothing to speak of.
func viewBytes(rep *store.Report) int64 {
	if rep.Status != store.ReportReady {
		return 0
	}
	return 8*int64(len(rep.Summary)+len(rep.Params)) + 256<<10
}

// chargeView charges n bytes of a view to the server's memory budget before
// the view allocates them, and returns what gives them back. A budget that has
// no room (once the caches gave back what they could) is ErrBusy: 503 with
// Retry-After, never a view that takes the server past its budget.
func (s *Server) chargeView(n int64) (release func(), err error) {
	if n <= 0 {
		return func() {}, nil
	}
	if err := s.budget.Charge(n); err != nil {
		if n > s.budget.Limit() && s.budget.Limit() > 0 {
			return nil, fmt.Errorf("%w: this view needs %s, more than the server's memory budget of %s (-memory-budget)",
				analyze.ErrBusy, analyze.FormatBytes(n), analyze.FormatBytes(s.budget.Limit()))
		}
		return nil, fmt.Errorf("%w: this view needs %s of the server's memory budget, which other work holds now (-memory-budget)",
			analyze.ErrBusy, analyze.FormatBytes(n))
	}
	return func() { s.budget.Uncharge(n) }, nil
}
