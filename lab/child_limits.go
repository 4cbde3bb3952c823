package lab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/leakui/leakui/lab/child"
	"golang.org/x/sys/unix"
)

// applyChildLimits sets the child's resource limits right after it starts,
// with prlimit(2) on its pid: its address space (RLIMIT_AS), its CPU time
// (RLIMIT_CPU, soft and hard alike: the kernel sends SIGKILL at the limit; a
// Go program would ignore the SIGXCPU of a lower soft limit) and the size of any file it
// writes (RLIMIT_FSIZE: a write beyond fails with EFBIG, since Go ignores
// SIGXFSZ). cgroup v2 memory limits are not used: the lab does not create
// cgroups (see docs/operations.md).
func applyChildLimits(pid int, c ChildLimits) error {
	cpu := uint64(c.CPU.Round(time.Second) / time.Second)
	limits := []struct {
		resource int
		lim      unix.Rlimit
	}{
		{unix.RLIMIT_AS, unix.Rlimit{Cur: uint64(c.Memory), Max: uint64(c.Memory)}},
		{unix.RLIMIT_CPU, unix.Rlimit{Cur: max(cpu, 1), Max: max(cpu, 1)}},
		{unix.RLIMIT_FSIZE, unix.Rlimit{Cur: uint64(c.Disk), Max: uint64(c.Disk)}},
	}
	var errs []error
	for _, l := range limits {
		if err := unix.Prlimit(pid, l.resource, &l.lim, nil); err != nil {
			errs = append(errs, fmt.Errorf("prlimit %d: %w", l.resource, err))
		}
	}
	return errors.Join(errs...)
}

// dirUsage is the disk space the files under dir take, in bytes (their
// allocated blocks).
func dirUsage(dir string) int64 {
	var total int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err == nil {
			if st, ok := info.Sys().(*syscall.Stat_t); ok {
				total += st.Blocks * 512
			} else {
				total += info.Size()
			}
		}
		return nil
	})
	return total
}

// diskWatchInterval is how often watchDisk measures a run's directory.
const diskWatchInterval = time.Second

// watchDisk stops the run (cancel with a cause naming the quota) once the
// files under dir take more than quota bytes, measured every
// diskWatchInterval until stop is closed.
func watchDisk(dir string, quota int64, cancel context.CancelCauseFunc, stop <-chan struct{}) {
	t := time.NewTicker(diskWatchInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if used := dirUsage(dir); used > quota {
				cancel(fmt.Errorf("the run directory grew to %s, past its quota of %s (-run-disk)", formatBytes(used), formatBytes(quota)))
				return
			}
		}
	}
}

// limitMarkers are what a child writes on its standard error when it meets a
// limit: the Go runtime's "fatal error: out of memory" (or a failed mmap or
// thread) under RLIMIT_AS, a write's EFBIG at RLIMIT_FSIZE, and the line of a
// workload one of whose processes was killed (child.HelperKilled): a broker the
// child starts inherits its limits, and the kernel kills it at its CPU time
// limit while the child waits on the network.
var limitMarkers = []string{"out of memory", "cannot allocate memory", "pthread_create failed", "file too large", child.HelperKilled}

// markerWatch is a writer that notes which limitMarkers went through it, even
// split across writes and however much a crash prints after them (the tail
// keeps only the end of a goroutine dump).
type markerWatch struct {
	mu    sync.Mutex
	carry []byte
	seen  []string
}

func (w *markerWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	buf := append(w.carry, p...)
	for _, m := range limitMarkers {
		if !slices.Contains(w.seen, m) && bytes.Contains(buf, []byte(m)) {
			w.seen = append(w.seen, m)
		}
	}
	w.carry = append(w.carry[:0], buf[max(0, len(buf)-32):]...)
	return len(p), nil
}

// text is the markers seen, joined.
func (w *markerWatch) text() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.seen, "; ")
}

// explainChildEnd says which limit ended a child that did not finish, when one
// did: the kernel's SIGKILL after its CPU time, the Go runtime's out of memory
// under RLIMIT_AS, a file at RLIMIT_FSIZE (stderr holds the markers seen). It
// returns "" otherwise.
func explainChildEnd(state *os.ProcessState, stderr string, c ChildLimits) string {
	if state != nil {
		if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL &&
			state.UserTime()+state.SystemTime() >= c.CPU.Round(time.Second)*9/10 {
			// (The kernel counts CPU time by scheduler ticks for RLIMIT_CPU,
			// the child's rusage more finely: a child killed at 1 s may read
			// 0.98 s.)
			return fmt.Sprintf("the child used up its CPU time limit of %s (-run-cpu)", c.CPU)
		}
	}
	switch {
	case strings.Contains(stderr, "out of memory") || strings.Contains(stderr, "cannot allocate memory") || strings.Contains(stderr, "pthread_create failed"):
		return fmt.Sprintf("the child reached its memory limit of %s of address space (-run-memory)", formatBytes(c.Memory))
	case strings.Contains(stderr, "file too large"):
		return fmt.Sprintf("a file of the child reached the run directory's quota of %s (-run-disk)", formatBytes(c.Disk))
	case strings.Contains(stderr, child.HelperKilled):
		return fmt.Sprintf("a process the child started was killed, as the kernel does at the CPU time limit of %s (-run-cpu) it inherits from the child", c.CPU)
	}
	return ""
}
