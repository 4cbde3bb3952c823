package analyze

// Meter charges a Budget for many small allocations (a goroutine, a frame, a
// string) in batches: it takes credit from the budget meterBatch bytes at a time,
// before the bytes are spent, so a parser that counts each thing it keeps costs a
// subtraction per thing, not an atomic add, and is still refused before it holds
// more than its budget (give or take one batch). The zero Meter, like a Meter
// of a nil Budget, only counts (Spent). A Meter is used by one goroutine.
type Meter struct {
	budget  *Budget
	credit  int64 // charged to budget, not yet spent
	charged int64 // charged to budget in all
}

// meterBatch is how much credit a Meter takes from its budget at a time.
const meterBatch = 64 << 10

// NewMeter returns a Meter charging b.
func NewMeter(b *Budget) *Meter { return &Meter{budget: b} }

// Charge counts n more bytes, taking credit from the budget when what is left
// does not cover them. Over the budget it fails with the budget's error
// (ErrTooLarge or ErrBusy, naming the limit) and counts nothing.
func (m *Meter) Charge(n int64) error {
	if n <= m.credit {
		m.credit -= n
		return nil
	}
	if m.budget == nil { // counted only
		m.charged += n - m.credit
		m.credit = 0
		return nil
	}
	need := n - m.credit
	batch := max(need, meterBatch)
	if err := m.budget.Charge(batch); err != nil {
		if batch == need {
			return err
		}
		if err := m.budget.Charge(need); err != nil { // the last bytes of the budget
			return err
		}
		batch = need
	}
	m.charged += batch
	m.credit += batch - n
	return nil
}

// Spent is the bytes counted so far.
func (m *Meter) Spent() int64 { return m.charged - m.credit }

// Settle gives the unspent credit back to the budget; what was spent stays
// charged until the budget is released.
func (m *Meter) Settle() {
	m.budget.Uncharge(m.credit)
	m.charged -= m.credit
	m.credit = 0
}
