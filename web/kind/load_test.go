package kind

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze"
)

func stringSource(name, text string) Source {
	return Source{Name: name, Open: func(context.Context) (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader(text)), nil
	}}
}

// TestLoadChargesTheCacheInTheParsesStead: a load parses within one analysis's
// budget, gives it back, and the cache keeps the result charged to the
// server's budget at what the parse charged; an error names the source.
func TestLoadChargesTheCacheInTheParsesStead(t *testing.T) {
	d := &Deps{Budget: analyze.NewBudget(1 << 20)}
	d.Caches = NewCaches(d.Budget)
	c := Register(d.Caches, "test", NewSizedCache(4, 1<<20, func(string) int64 { return 0 }))
	p := Parse[string]{Key: "k", Sources: []Source{stringSource("a.txt", "hello")}, Charged: true, Wrap: true,
		Run: func(_ context.Context, in []io.Reader, b *analyze.Budget) (string, error) {
			data, err := io.ReadAll(in[0])
			if err != nil {
				return "", err
			}
			if err := b.Charge(1000); err != nil {
				return "", err
			}
			return string(data), nil
		}}
	v, err := Load(context.Background(), d, c, p)
	if err != nil || v != "hello" {
		t.Fatalf("Load = %q, %v", v, err)
	}
	if got := d.Budget.Used(); got != 1000 || c.Charged() != 1000 {
		t.Errorf("the server's budget holds %d and the cache %d, want 1000 each", got, c.Charged())
	}
	p.Key = "bad"
	p.Run = func(context.Context, []io.Reader, *analyze.Budget) (string, error) { return "", analyze.ErrMalformed }
	if _, err := Load(context.Background(), d, c, p); !errors.Is(err, analyze.ErrMalformed) || !strings.HasPrefix(err.Error(), "a.txt: ") {
		t.Errorf("a failed parse: %v, want it to name a.txt and wrap ErrMalformed", err)
	}
	if got := d.Budget.Used(); got != 1000 {
		t.Errorf("after a failed parse the budget holds %d, want 1000", got)
	}
}

// TestLoadOnce asks for one uncached load from many requests at once: it runs
// once, everyone gets its result, and the next ask hits the cache.
func TestLoadOnce(t *testing.T) {
	const callers = 8
	joins := make(chan struct{}, callers)
	c := NewCache[*int](16)
	c.joined = func() { joins <- struct{}{} }
	key := "test:" + t.Name()
	var loads atomic.Int32
	want := new(int)
	// The load lasts until every other caller waits for it.
	load := func() (*int, int64, error) {
		loads.Add(1)
		timeout := time.NewTimer(10 * time.Second)
		defer timeout.Stop()
		for n := 0; n < callers-1; n++ {
			select {
			case <-joins:
			case <-timeout.C:
				t.Errorf("%d of the %d other callers joined the load", n, callers-1)
				return want, -1, nil
			}
		}
		return want, -1, nil
	}
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			got, err := c.do(context.Background(), key, load)
			if err != nil || got != want {
				t.Errorf("got %v, %v", got, err)
			}
		})
	}
	wg.Wait()
	if _, err := c.do(context.Background(), key, load); err != nil || loads.Load() != 1 {
		t.Errorf("loaded %d times (%v)", loads.Load(), err)
	}
	if len(c.flights) != 0 {
		t.Errorf("%d loads left in flight", len(c.flights))
	}
}

// TestLoadCancelledLeader stops the request that loads: it gets its context's
// error, nothing is cached, and a request that was waiting loads for itself.
func TestLoadCancelledLeader(t *testing.T) {
	joined := make(chan struct{}, 1)
	c := NewCache[int](16)
	c.joined = func() {
		select {
		case joined <- struct{}{}:
		default:
		}
	}
	key := "test:" + t.Name()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{})
	leaderDone := make(chan error, 1)
	go func() {
		_, err := c.do(ctx, key, func() (int, int64, error) {
			close(started)
			<-ctx.Done()
			return 0, 0, ctx.Err()
		})
		leaderDone <- err
	}()
	<-started
	waiter := make(chan int, 1)
	go func() {
		v, err := c.do(context.Background(), key, func() (int, int64, error) { return 7, -1, nil })
		if err != nil {
			t.Errorf("waiter: %v", err)
		}
		waiter <- v
	}()
	select {
	case <-joined:
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter never joined the leader's load")
	}
	cancel()
	if err := <-leaderDone; !errors.Is(err, context.Canceled) {
		t.Errorf("leader: %v", err)
	}
	if v := <-waiter; v != 7 {
		t.Errorf("waiter got %d", v)
	}
}
