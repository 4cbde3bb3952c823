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

// TestBudgetReclaimsBeforeItIsBusy: a charge the process-wide budget has no room
// for asks its reclaim function for the bytes missing, and succeeds when that
// gives them back; when reclaim gives back nothing the charge is ErrBusy.
func TestBudgetReclaimsBeforeItIsBusy(t *testing.T) {
	root := NewBudget(100)
	cached := int64(60)
	if err := root.Charge(cached); err != nil {
		t.Fatal(err)
	}
	var asked []int64
	root.SetReclaim(func(need int64) bool {
		asked = append(asked, need)
		if cached == 0 {
			return false
		}
		root.Uncharge(cached)
		cached = 0
		return true
	})
	a := root.Child(0)
	if err := a.Charge(70); err != nil {
		t.Fatalf("a charge that fits once the cache is dropped: %v", err)
	}
	if len(asked) != 1 || asked[0] != 30 {
		t.Errorf("reclaim was asked for %v, want [30]", asked)
	}
	if root.Used() != 70 {
		t.Errorf("the budget holds %d, want 70", root.Used())
	}
	if err := root.Child(0).Charge(40); !errors.Is(err, ErrBusy) {
		t.Errorf("a charge with nothing left to reclaim: %v, want ErrBusy", err)
	}
	if root.Used() != 70 {
		t.Errorf("the budget holds %d after the refused charge, want 70", root.Used())
	}
}
