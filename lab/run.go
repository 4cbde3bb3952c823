package lab

import (
	"context"
	"sync"
)

// Run is one running reproduction. Its state can be read at any time; Changes
// tells when it changes.
type Run struct {
	ID   string
	Spec Spec

	mu       sync.Mutex
	progress Progress
	changed  chan struct{} // closed at the next change
	cancel   context.CancelCauseFunc
	done     chan struct{}
	// recording serialises the recording of progress (the run's own and the
	// heartbeat's), so the store never gets an older state after a newer one.
	recording sync.Mutex
}

// State returns a copy of the current progress and a channel that is closed at the
// next change.
func (r *Run) State() (Progress, <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.progress.clone(), r.changed
}

// Done is closed when the run has ended and its end is recorded.
func (r *Run) Done() <-chan struct{} { return r.done }

// update changes the progress under the lock and wakes the watchers.
func (r *Run) update(fn func(p *Progress)) Progress {
	r.mu.Lock()
	fn(&r.progress)
	p := r.progress.clone()
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
	return p
}
