package logs

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/web/kind"
)

// TestLogFlightsCountOnce asks for one uncached count from many requests at
// once: it runs once, everyone gets its result, and the next ask hits the
// cache.
func TestLogFlightsCountOnce(t *testing.T) {
	const callers = 8
	joins := make(chan struct{}, callers)
	g := &logFlights{calls: map[string]*logFlight{}, cache: kind.NewCache[*logs.Report](16), joined: func() { joins <- struct{}{} }}
	key := "test:" + t.Name()
	var counts atomic.Int32
	want := &logs.Report{Lines: 42}
	// The count lasts until every other caller waits for it.
	count := func() (*logs.Report, error) {
		counts.Add(1)
		timeout := time.NewTimer(10 * time.Second)
		defer timeout.Stop()
		for n := 0; n < callers-1; n++ {
			select {
			case <-joins:
			case <-timeout.C:
				t.Errorf("%d of the %d other callers joined the count", n, callers-1)
				return want, nil
			}
		}
		return want, nil
	}
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			got, err := g.do(context.Background(), key, count)
			if err != nil || got != want {
				t.Errorf("got %v, %v", got, err)
			}
		})
	}
	wg.Wait()
	if _, err := g.do(context.Background(), key, count); err != nil || counts.Load() != 1 {
		t.Errorf("counted %d times (%v)", counts.Load(), err)
	}
	if len(g.calls) != 0 {
		t.Errorf("%d counts left in flight", len(g.calls))
	}
}

// TestLogFlightsCancelledLeader stops the request that counts: it gets its
// context's error, nothing is cached, and a request that was waiting counts
// for itself.
func TestLogFlightsCancelledLeader(t *testing.T) {
	joined := make(chan struct{}, 1)
	g := &logFlights{calls: map[string]*logFlight{}, cache: kind.NewCache[*logs.Report](16), joined: func() {
		select {
		case joined <- struct{}{}:
		default:
		}
	}}
	key := "test:" + t.Name()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{})
	leaderDone := make(chan error, 1)
	go func() {
		_, err := g.do(ctx, key, func() (*logs.Report, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		})
		leaderDone <- err
	}()
	<-started
	waiter := make(chan *logs.Report, 1)
	go func() {
		rep, err := g.do(context.Background(), key, func() (*logs.Report, error) { return &logs.Report{Lines: 7}, nil })
		if err != nil {
			t.Errorf("waiter: %v", err)
		}
		waiter <- rep
	}()
	select {
	case <-joined:
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter never joined the leader's count")
	}
	cancel()
	if err := <-leaderDone; !errors.Is(err, context.Canceled) {
		t.Errorf("leader: %v", err)
	}
	if rep := <-waiter; rep == nil || rep.Lines != 7 {
		t.Errorf("waiter got %+v", rep)
	}
}
