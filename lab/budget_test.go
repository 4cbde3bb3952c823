package lab

import (
	"errors"
	"strings"
	"testing"
)

// TestBudgetArithmetic checks the spec check against the child's limits: the
// written bytes and the batch memory computed from the spec (and saturating
// instead of overflowing), shown in the message, and the presets within the
// default limits.
func TestBudgetArithmetic(t *testing.T) {
	limits := ChildLimits{Memory: 1 << 30, Disk: 100 << 20}
	for _, c := range []struct {
		spec Spec
		want string // "" accepted
	}{
		{Spec{Workload: WorkloadRecovery, Partitions: 1, Segments: 20, Batches: 500, Records: 20, ValueBytes: 512}, ""},
		{Spec{Workload: WorkloadRecovery, Partitions: 2, Segments: 20, Batches: 500, Records: 20, ValueBytes: 512},
			"2 partitions × 20 segments × 500 batches × 20 records × 512 B value size = 195.3 MiB written, above the run directory's quota of 100.0 MiB"},
		{Spec{Workload: WorkloadRecovery, Partitions: 1, Segments: 1, Batches: 1, Records: 1000, ValueBytes: 512 << 10},
			"one batch is 1000 records × 512.0 KiB value size = 500.0 MiB, and a recovery run holds about 4× a batch at once = 2.0 GiB, above the child's memory limit of 1.0 GiB"},
		{Spec{Workload: WorkloadRecovery, Partitions: 1 << 20, Segments: 1 << 20, Batches: 1 << 20, Records: 1, ValueBytes: 1 << 20}, "= 8.0 EiB written"},
		{Spec{Workload: WorkloadCheckpoint, Cycles: 5000, Tasks: 256}, ""},
	} {
		err := c.spec.checkBudget(limits)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v refused: %v", c.spec, err)
		case c.want != "" && (!errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: %v, want ErrTooLarge with %q", c.spec, err, c.want)
		}
	}
	for _, p := range Presets {
		spec := p.Spec
		if err := spec.Normalize(Limits{}); err != nil {
			t.Fatal(err)
		}
		if err := spec.checkBudget(ChildLimits{}); err != nil {
			t.Errorf("preset %s is above the default limits: %v", p.Name, err)
		}
	}
}
