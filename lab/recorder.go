package lab

import (
	"context"
	"time"
)

// Recorder is where a run's state and files go. The web package implements it over
// the store; the lab only calls it.
type Recorder interface {
	// Progress records a running run's progress and renews its lease until
	// leaseUntil.
	Progress(ctx context.Context, runID string, p Progress, leaseUntil time.Time) error
	// Capture stores one file the run produced.
	Capture(ctx context.Context, runID string, c Capture) error
	// Finish records how the run ended (p.Status is final).
	Finish(ctx context.Context, runID string, spec Spec, p Progress) error
}

// Capture is one file taken from a run: a heap or goroutine profile from its pprof
// endpoint, or its log.
type Capture struct {
	// Role is "heap", "goroutine", RoleGoroutineLeak or "log".
	Role string
	// Step is the step the run had reached (0 before the first).
	Step int64
	// Name is the file name to show, such as "heap-0042.pb.gz".
	Name    string
	Data    []byte
	TakenAt time.Time
}
