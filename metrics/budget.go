package metrics

import "sync/atomic"

// LateBudget is a Budget known only once what holds it is built (the web
// server makes its own, after the metrics): until Set, its gauges read 0.
type LateBudget struct{ b atomic.Pointer[Budget] }

// Set gives the budget the gauges read from now on.
func (l *LateBudget) Set(b Budget) { l.b.Store(&b) }

// Used is the set budget's bytes in use, or 0.
func (l *LateBudget) Used() int64 {
	if b := l.b.Load(); b != nil {
		return (*b).Used()
	}
	return 0
}

// Limit is the set budget's limit, or 0.
func (l *LateBudget) Limit() int64 {
	if b := l.b.Load(); b != nil {
		return (*b).Limit()
	}
	return 0
}
