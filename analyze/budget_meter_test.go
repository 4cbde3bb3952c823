package analyze

import (
	"errors"
	"testing"
)

// TestMeterChargesInBatchesAndStopsAtTheLimit: a meter takes credit in batches
// (the budget sees whole batches, not each charge), is refused with ErrTooLarge
// once what it counted would pass the limit, including the last bytes below a
// batch, and Settle gives the unspent credit back.
func TestMeterChargesInBatchesAndStopsAtTheLimit(t *testing.T) {
	server := NewBudget(1 << 30)
	b := server.Child(meterBatch + 1000)
	m := NewMeter(b)
	for range 100 {
		if err := m.Charge(10); err != nil {
			t.Fatal(err)
		}
	}
	if b.Used() != meterBatch || m.Spent() != 1000 {
		t.Errorf("after 100 charges of 10: budget used %d, spent %d; want %d and 1000", b.Used(), m.Spent(), meterBatch)
	}
	// What is left of the budget can still be spent, in a batch of its own.
	if err := m.Charge(meterBatch); err != nil {
		t.Errorf("the last bytes of the budget: %v", err)
	}
	if err := m.Charge(1001); !errors.Is(err, ErrTooLarge) {
		t.Errorf("past the limit: %v, want ErrTooLarge", err)
	}
	if m.Spent() != meterBatch+1000 {
		t.Errorf("spent %d after a refused charge, want %d", m.Spent(), meterBatch+1000)
	}
	m.Settle()
	if b.Used() != meterBatch+1000 || server.Used() != meterBatch+1000 {
		t.Errorf("after Settle: used %d/%d, want %d", b.Used(), server.Used(), meterBatch+1000)
	}
	b.Release()
	if server.Used() != 0 {
		t.Errorf("after Release the server holds %d", server.Used())
	}
	var zero Meter
	if err := zero.Charge(1 << 40); err != nil {
		t.Errorf("the zero Meter: %v", err)
	}
}
