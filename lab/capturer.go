package lab

import (
	"context"
	"log/slog"
	"time"
)

// capturer takes snapshots of one run in its own goroutine, one at a time: a
// request that arrives while a capture is going is dropped (the next one will
// come), so capturing never holds up reading the run's events.
type capturer struct {
	requests chan captureRequest
	final    chan captureRequest
	done     chan struct{}
}

type captureRequest struct {
	base string
	step int64
}

// startCapturer starts the goroutine; finish must be called exactly once.
func (m *Manager) startCapturer(ctx context.Context, run *Run, log *slog.Logger) *capturer {
	c := &capturer{requests: make(chan captureRequest, 1), final: make(chan captureRequest, 1), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		take := func(req captureRequest) {
			if m.cfg.NoCapture || req.base == "" || ctx.Err() != nil {
				return
			}
			caps, err := captureProfiles(ctx, m.client, req.base, req.step, time.Now)
			if err != nil && ctx.Err() == nil {
				log.Warn("capture failed", "step", req.step, "err", err)
			}
			stored := 0
			for _, cp := range caps {
				if err := m.cfg.Recorder.Capture(ctx, run.ID, cp); err != nil {
					log.Error("storing a capture", "err", err)
					continue
				}
				stored++
			}
			if stored == 2 {
				run.update(func(p *Progress) { p.Snapshots++ })
			}
		}
		for {
			select {
			case req := <-c.requests:
				take(req)
			case req := <-c.final:
				// Drain a pending request first, so the last capture is the final one.
				select {
				case pending := <-c.requests:
					if pending.step != req.step {
						take(pending)
					}
				default:
				}
				take(req)
				return
			}
		}
	}()
	return c
}

// request asks for a snapshot unless one is pending.
func (c *capturer) request(base string, step int64) {
	select {
	case c.requests <- captureRequest{base, step}:
	default:
	}
}

// finish takes the final snapshot (when base is set) and waits for the capturer to
// stop.
func (c *capturer) finish(base string, step int64) {
	c.final <- captureRequest{base, step}
	<-c.done
}
