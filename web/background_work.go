package web

import (
	"context"
	"time"

	"github.com/leakui/leakui/web/background"
	"github.com/leakui/leakui/web/heapdumps"
)

// HeapDumpQueue is the job queue the heap dump analyses wait in: the runner
// given as Config.Jobs works it, with one worker (an analysis holds much of
// the memory budget).
const HeapDumpQueue = background.Queue

// backgroundStopTimeout bounds the wait, in Close, for the analyses running
// here to unwind (they stop at their next check, within 65,536 objects).
const backgroundStopTimeout = time.Minute

// newBackground builds the server's background work (web/background): the
// heap dump analyses on the job runner, the retention when Retain is set and
// the sweep of the lab's runs when the lab is on.
func (s *Server) newBackground() *background.Background {
	cfg := background.Config{Store: s.store, Log: s.log, Jobs: s.cfg.Jobs,
		Analyze: s.heapDumps.AnalyzeStored, Failed: heapdumps.FailedSummary,
		Retries: heapdumps.Retries, MaxQueuedPerClient: s.cfg.MaxQueuedPerClient,
		Retain: s.cfg.Retain,
		Expired: func(int, int) {
			s.profiles.Clear()
			s.flames.Clear()
		}}
	if s.lab != nil {
		cfg.RunLease, cfg.Heartbeat = s.lab.Lease(), s.lab.Heartbeat
	}
	return background.New(cfg)
}

// startBackground starts the background work b.
func startBackground(b *background.Background) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return b.Start(ctx)
}

// stopBackground stops the background work b: the analyses running here go
// back to their queue.
func stopBackground(b *background.Background) error {
	ctx, cancel := context.WithTimeout(context.Background(), backgroundStopTimeout)
	defer cancel()
	return b.Stop(ctx)
}
