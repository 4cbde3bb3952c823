package analyze

import (
	"fmt"
	"sync/atomic"
)

// Budget is a byte budget that an analysis charges as it allocates: a parser
// counts what it is about to hold (a Line of a profile costs its in-memory size,
// not its two bytes on the wire) before it allocates it, so input that would not
// fit is refused at once, not after the allocation. A budget made by Child is one
// analysis's (ErrTooLarge beyond its limit); what it charges is charged to its
// parent too, the process-wide budget that concurrent analyses share (ErrBusy
// when they have used it up). A nil *Budget is unbounded. Budgets are safe for
// concurrent use.
type Budget struct {
	limit  int64
	used   atomic.Int64
	parent *Budget
	// reclaim, when set (SetReclaim), frees cached results for a charge the
	// process-wide budget has no room for.
	reclaim func(need int64) bool
}

// SetReclaim makes a process-wide budget call reclaim when a charge does not fit,
// before it answers ErrBusy: reclaim gives back what it can of the need bytes
// (dropping cached results that were charged to b) and reports whether it gave
// back anything, and the charge is tried again. Call it before b is used.
func (b *Budget) SetReclaim(reclaim func(need int64) bool) { b.reclaim = reclaim }

// NewBudget returns a process-wide budget of limit bytes (≤ 0: unbounded).
func NewBudget(limit int64) *Budget { return &Budget{limit: limit} }

// Child returns the budget of one analysis: at most limit bytes (≤ 0 or above
// b's limit: b's limit), charged to b as well. Release it when the analysis
// ends. A nil b gives a budget of limit bytes alone.
func (b *Budget) Child(limit int64) *Budget {
	if b != nil && b.limit > 0 && (limit <= 0 || limit > b.limit) {
		limit = b.limit
	}
	return &Budget{limit: limit, parent: b}
}

// Limit is the budget's limit in bytes (≤ 0: unbounded).
func (b *Budget) Limit() int64 {
	if b == nil {
		return 0
	}
	return b.limit
}

// Used is the bytes charged and not given back.
func (b *Budget) Used() int64 {
	if b == nil {
		return 0
	}
	return b.used.Load()
}

// Remaining is what can still be charged to b itself (not counting its parent's
// other children); a very large number when b is unbounded.
func (b *Budget) Remaining() int64 {
	if b == nil || b.limit <= 0 {
		return 1 << 62
	}
	return b.limit - b.used.Load()
}

// Charge counts n more bytes. Over b's own limit it charges nothing and returns an
// error wrapping ErrTooLarge (for a child: one analysis needs more than it may
// have) or ErrBusy (for the process-wide budget: the other analyses hold the rest).
func (b *Budget) Charge(n int64) error {
	if b == nil || n <= 0 {
		return nil
	}
	if used := b.used.Add(n); b.limit > 0 && used > b.limit {
		b.used.Add(-n)
		if b.parent == nil {
			if b.reclaim != nil && b.reclaim(used-b.limit) {
				return b.Charge(n)
			}
			return fmt.Errorf("%w: the server's memory budget of %s is in use by other analyses (-memory-budget)", ErrBusy, FormatBytes(b.limit))
		}
		return fmt.Errorf("%w: the analysis needs more than its memory budget of %s (-memory-budget)", ErrTooLarge, FormatBytes(b.limit))
	}
	if err := b.parent.Charge(n); err != nil {
		b.used.Add(-n)
		return err
	}
	return nil
}

// Uncharge gives back n bytes charged before (to the parent too).
func (b *Budget) Uncharge(n int64) {
	if b == nil || n <= 0 {
		return
	}
	b.used.Add(-n)
	b.parent.Uncharge(n)
}

// Release gives back everything b holds, when its analysis has ended.
func (b *Budget) Release() {
	if b == nil {
		return
	}
	b.parent.Uncharge(b.used.Swap(0))
}
