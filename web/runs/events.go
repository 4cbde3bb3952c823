package runs

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/page"
)

// Events is GET /runs/{id}/events: server-sent events with the run's
// progress, at most one every 250 ms, starting with the current state (so a reload
// resumes), and an "end" event when the run has ended. A run going on in another
// replica is followed through the store.
func (s *Kind) Events(w http.ResponseWriter, r *http.Request) error {
	id := chi.URLParam(r, "id")
	run, p, err := s.runState(r, id)
	if err != nil {
		return err
	}
	send, err := page.StartEventStream(w)
	if err != nil {
		return err
	}
	ctx := r.Context()
	var live *lab.Run
	if s.Lab != nil && run.Status == store.RunStatusRunning {
		live, _ = s.Lab.Get(id)
	}
	poll := time.NewTicker(time.Second)
	defer poll.Stop()
	for {
		var changed <-chan struct{}
		if live != nil {
			p, changed = live.State()
			if p.Status != lab.StatusRunning {
				// Ended, but perhaps not recorded yet: wait for the record and
				// send the end as the store has it, with its report.
				select {
				case <-live.Done():
				case <-ctx.Done():
					return nil
				case <-s.d.Closing:
					return nil
				}
				live = nil
				continue
			}
		} else if _, p, err = s.runState(r, id); err != nil {
			return nil // the stream is open; end it
		}
		if err := send("progress", p); err != nil {
			return nil
		}
		if p.Status != lab.StatusRunning {
			send("end", map[string]string{"status": p.Status, "url": page.RunURL(id)})
			return nil
		}
		// Wait for a change (or the next poll), then keep at least page.EventInterval
		// between two events.
		select {
		case <-ctx.Done():
			return nil
		case <-s.d.Closing:
			return nil
		case <-changed:
		case <-poll.C:
		case <-doneOf(live):
		}
		if !page.Pause(ctx, s.d.Closing) {
			return nil
		}
		if live != nil {
			select {
			case <-live.Done():
				// The run has ended and its end is recorded: read it from the store.
				live = nil
			default:
			}
		}
	}
}

// doneOf is a run's done channel, or nil (never ready) without a run.
func doneOf(r *lab.Run) <-chan struct{} {
	if r == nil {
		return nil
	}
	return r.Done()
}
