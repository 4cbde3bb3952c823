package lab

import (
	"fmt"
	"math/bits"
	"time"
)

// ChildLimits bound what one run's child process may use. The spec of a run is
// checked against them before it starts (Spec.checkBudget), and the child runs
// under them (applyChildLimits, watchDisk).
type ChildLimits struct {
	// Memory bounds the child's address space in bytes (RLIMIT_AS; default
	// DefaultChildMemory). It is address space, not resident memory: a Go
	// program reserves a few hundred MiB it never touches, so below about
	// 1 GiB the child cannot start.
	Memory int64
	// Disk is the quota of the run's directory in bytes (default
	// DefaultChildDisk): no file the child writes may grow beyond it
	// (RLIMIT_FSIZE) and the run is stopped when the directory as a whole does.
	Disk int64
	// CPU bounds the child's CPU time (RLIMIT_CPU; default DefaultChildCPU):
	// the kernel kills it when it has used that much.
	CPU time.Duration
}

// The defaults of ChildLimits.
const (
	// DefaultChildMemory is a child's address space.
	DefaultChildMemory = 4 << 30
	// DefaultChildDisk is the quota of a run's directory.
	DefaultChildDisk = 2 << 30
	// DefaultChildCPU is a child's CPU time.
	DefaultChildCPU = 20 * time.Minute
)

// batchMemoryFactor is how many times one record batch's values a recovery
// child holds in memory at once: the values as they are generated, the batch
// encoded, its compressed form while writing, and the decompressed records
// while recovering (recovery/writelog.go, recovery/recover.go).
const batchMemoryFactor = 4

func (c ChildLimits) withDefaults() ChildLimits {
	if c.Memory <= 0 {
		c.Memory = DefaultChildMemory
	}
	if c.Disk <= 0 {
		c.Disk = DefaultChildDisk
	}
	if c.CPU <= 0 {
		c.CPU = DefaultChildCPU
	}
	return c
}

// checkBudget refuses, with ErrTooLarge and the arithmetic, a normalized spec
// whose child would write more than the run directory's quota or hold more
// than its memory limit. A recovery run writes partitions × segments × batches
// × records × value size bytes of values, and holds about batchMemoryFactor
// times one batch (records × value size) in memory.
func (s Spec) checkBudget(c ChildLimits) error {
	if s.Workload != WorkloadRecovery {
		return nil
	}
	c = c.withDefaults()
	batch := product(int64(s.Records), int64(s.ValueBytes))
	if need := product(batch, batchMemoryFactor); need > c.Memory {
		return fmt.Errorf("%w: one batch is %d records × %s value size = %s, and a recovery run holds about %d× a batch at once = %s, above the child's memory limit of %s (-run-memory)",
			ErrTooLarge, s.Records, formatBytes(int64(s.ValueBytes)), formatBytes(batch), batchMemoryFactor, formatBytes(need), formatBytes(c.Memory))
	}
	written := product(int64(s.Partitions), int64(s.Segments), int64(s.Batches), int64(s.Records), int64(s.ValueBytes))
	if written > c.Disk {
		return fmt.Errorf("%w: %d partitions × %d segments × %d batches × %d records × %s value size = %s written, above the run directory's quota of %s (-run-disk)",
			ErrTooLarge, s.Partitions, s.Segments, s.Batches, s.Records, formatBytes(int64(s.ValueBytes)), formatBytes(written), formatBytes(c.Disk))
	}
	return nil
}

// product multiplies non-negative factors, saturating at the largest int64.
func product(factors ...int64) int64 {
	p := uint64(1)
	for _, f := range factors {
		hi, lo := bits.Mul64(p, uint64(max(f, 0)))
		if hi != 0 || lo > 1<<63-1 {
			return 1<<63 - 1
		}
		p = lo
	}
	return int64(p)
}

// formatBytes writes a size in binary units, as the flags take them: "512 B",
// "1.5 MiB", "4.0 GiB".
func formatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
