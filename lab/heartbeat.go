package lab

import (
	"context"
	"errors"
	"time"
)

// recordProgress records the run's current progress and renews its lease for
// another Lease. The run's own events and the heartbeat both record through
// it, one at a time.
func (m *Manager) recordProgress(ctx context.Context, run *Run) error {
	run.recording.Lock()
	defer run.recording.Unlock()
	p, _ := run.State()
	if p.Status != StatusRunning {
		return nil // its end is being recorded
	}
	return m.cfg.Recorder.Progress(ctx, run.ID, p, time.Now().Add(m.cfg.Lease))
}

// Heartbeat renews the lease of every run going on this server, so that a run
// whose child is silent for longer than the lease (the write phase of a
// recovery run, a capture with a long interval) stays ours as long as the
// child lives. Call it at least every Lease/2; package web calls it from its
// sweeper, right before the sweep, so a server never marks its own live runs
// interrupted. It returns the first failure to record a lease.
func (m *Manager) Heartbeat(ctx context.Context) error {
	m.mu.Lock()
	runs := make([]*Run, 0, len(m.runs))
	for _, r := range m.runs {
		runs = append(runs, r)
	}
	m.mu.Unlock()
	var errs []error
	for _, r := range runs {
		select {
		case <-r.done:
			continue
		default:
		}
		if err := m.recordProgress(ctx, r); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
