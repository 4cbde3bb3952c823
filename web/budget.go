package web

import (
	"math"
	"runtime/debug"
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
