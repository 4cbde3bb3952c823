package web

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze"
)

// TestLogFlightsCountOnce asks for one uncached count from many requests at
// once: it runs once, everyone gets its result, and the next ask hits the
// cache.
func TestLogFlightsCountOnce(t *testing.T) {
	g := &logFlights{calls: map[string]*logFlight{}}
	key := "test:" + t.Name()
	defer logReports.remove(key)
	var counts atomic.Int32
	want := &analyze.LogReport{Lines: 42}
	count := func() (*analyze.LogReport, error) {
		counts.Add(1)
		time.Sleep(50 * time.Millisecond)
		return want, nil
	}
	var wg sync.WaitGroup
	for range 8 {
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
	g := &logFlights{calls: map[string]*logFlight{}}
	key := "test:" + t.Name()
	defer logReports.remove(key)
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	leaderDone := make(chan error, 1)
	go func() {
		_, err := g.do(ctx, key, func() (*analyze.LogReport, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		})
		leaderDone <- err
	}()
	<-started
	waiter := make(chan *analyze.LogReport, 1)
	go func() {
		rep, err := g.do(context.Background(), key, func() (*analyze.LogReport, error) { return &analyze.LogReport{Lines: 7}, nil })
		if err != nil {
			t.Errorf("waiter: %v", err)
		}
		waiter <- rep
	}()
	time.Sleep(20 * time.Millisecond) // let the waiter join (it counts itself either way)
	cancel()
	if err := <-leaderDone; !errors.Is(err, context.Canceled) {
		t.Errorf("leader: %v", err)
	}
	if rep := <-waiter; rep == nil || rep.Lines != 7 {
		t.Errorf("waiter got %+v", rep)
	}
}
