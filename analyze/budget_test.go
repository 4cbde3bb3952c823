package analyze

import (
	"errors"
	"testing"
)

// TestBudgetChildAndParent: a child refuses beyond its own limit with
// ErrTooLarge and charges nothing then; beyond the parent's, with ErrBusy; Release
// gives everything back to the parent.
func TestBudgetChildAndParent(t *testing.T) {
	server := NewBudget(100)
	a, b := server.Child(60), server.Child(60)
	if err := a.Charge(61); !errors.Is(err, ErrTooLarge) || a.Used() != 0 || server.Used() != 0 {
		t.Errorf("over the child's limit: %v, used %d/%d", err, a.Used(), server.Used())
	}
	if err := a.Charge(50); err != nil {
		t.Fatal(err)
	}
	if err := b.Charge(51); !errors.Is(err, ErrBusy) || b.Used() != 0 || server.Used() != 50 {
		t.Errorf("over the parent's limit: %v, used %d/%d", err, b.Used(), server.Used())
	}
	a.Release()
	if err := b.Charge(51); err != nil || server.Used() != 51 {
		t.Errorf("after a's release: %v, server used %d", err, server.Used())
	}
	var unbounded *Budget
	if err := unbounded.Charge(1 << 60); err != nil || unbounded.Child(10).Limit() != 10 {
		t.Errorf("a nil budget: %v", err)
	}
	if got := NewBudget(100).Child(0).Limit(); got != 100 {
		t.Errorf("a child without a limit of its own has %d, want its parent's 100", got)
	}
}
