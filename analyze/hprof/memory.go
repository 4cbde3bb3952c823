package hprof

import (
	"fmt"

	"github.com/leakui/leakui/analyze"
)

// meter charges what a Heap allocates to Options.Budget, before it allocates it,
// and remembers how much it holds so that Close (or a failed Parse) gives it back.
// A nil budget charges nothing. Small amounts (names, roots, frames) are gathered
// into batches of smallBatch bytes so that each does not cost an atomic add.
type meter struct {
	budget *analyze.Budget
	used   int64 // charged and not given back
	small  int64 // small charges not yet charged
	peak   int64 // the most used at once
	err    error // the first refusal of a small charge, for visitors that return no error
}

// smallBatch is how many bytes of small charges a meter gathers before charging them.
const smallBatch = 64 << 10

// charge counts n bytes about to be allocated for what, or says why not: an error
// wrapping analyze.ErrTooLarge (the analysis's own limit) or analyze.ErrBusy (the
// server's budget, used by other analyses), naming the limit.
func (m *meter) charge(n int64, what string) error {
	if m.budget == nil || n <= 0 {
		return nil
	}
	if err := m.budget.Charge(n); err != nil {
		return fmt.Errorf("heap dump: %s (%s more, %s held): %w", what, analyze.FormatBytes(n), analyze.FormatBytes(m.used), err)
	}
	m.used += n
	m.peak = max(m.peak, m.used)
	return nil
}

// chargeSmall counts a small amount, charging the batch when it is full; a refusal
// is kept in m.err.
func (m *meter) chargeSmall(n int64, what string) {
	if m.budget == nil || m.err != nil {
		return
	}
	if m.small += n; m.small >= smallBatch {
		if err := m.charge(m.small, what); err != nil {
			m.err = err
			return
		}
		m.small = 0
	}
}

// flush charges the small charges gathered, and returns the first refusal.
func (m *meter) flush() error {
	if m.err == nil && m.small > 0 {
		m.err = m.charge(m.small, "names, classes and roots")
		m.small = 0
	}
	return m.err
}

// probe tells whether n more bytes could be charged now, without keeping them: a
// stage that knows a lower bound of what the later ones need fails at once.
func (m *meter) probe(n int64, what string) error {
	if m.budget == nil || n <= 0 {
		return nil
	}
	peak := m.peak
	if err := m.charge(n, what); err != nil {
		return err
	}
	m.uncharge(n)
	m.peak = peak
	return nil
}

// uncharge gives back n bytes no longer held.
func (m *meter) uncharge(n int64) {
	if m.budget == nil || n <= 0 {
		return
	}
	n = min(n, m.used)
	m.budget.Uncharge(n)
	m.used -= n
}

// release gives back everything the meter holds.
func (m *meter) release() {
	m.uncharge(m.used)
	m.small = 0
}

// peakBytes is a lower bound of what the analysis of n objects and e
// references charges at its peak beyond what the heap holds when Parse asks
// (after the first pass, e unknown, and after the second): the
// semidominators' four numbers a reached object, and in memory the
// references besides, so that a dump too large for the budget fails before
// its longest stages.
func (h *Heap) peakBytes(n, e int64) int64 {
	if h.rs.spill && fileBacked {
		return 16 * n
	}
	return 16*n + 4*e
}
