package web

import (
	"math"
	"runtime/debug"

	"github.com/leakui/leakui/analyze"
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
// built): half of the server's, at most MaxAnalysisBudget, charged to the
// server's too. Release it when done.
func (s *Server) analysisBudget() *analyze.Budget {
	return s.budget.Child(min(s.budget.Limit()/2, MaxAnalysisBudget))
}

// MaxAnalysisBudget bounds what one analysis may hold however large the
// server's budget: four times the default -max-decompressed, what a profile of
// many samples needs, and less than the 11 GB that 400 KB of gzip can ask for.
const MaxAnalysisBudget = 4 << 30
