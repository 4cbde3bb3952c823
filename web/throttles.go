package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
)

// throttleBacklogTimeout is how long a request waits in a throttle's backlog
// before it gets 429.
const throttleBacklogTimeout = 30 * time.Second

// throttleClass is one kind of request with a throttle of its own, so that one
// kind filling its slots (stalled downloads, trickled uploads) does not keep
// the others waiting.
type throttleClass struct {
	// key names the class in /healthz's JSON ("api_reads"), name in words
	// ("API reads"); flag is the serve flag that sets its slots.
	key, name, flag string
	*fairThrottle
}

// throttles are the server's four request classes: uploads, downloads (/a/),
// page views (HTML), and API reads (/api/, Markdown, JSON, CSV, chart images).
type throttles struct {
	uploads, downloads, pages, apiReads *throttleClass
}

// all lists the classes in the order /healthz reports them.
func (t *throttles) all() []*throttleClass {
	return []*throttleClass{t.uploads, t.downloads, t.pages, t.apiReads}
}

// newThrottleClass makes a class of limit slots and a backlog of 8 times as
// many. perClient > 0 caps each client address at that many requests going
// or waiting, of which at most limit run; 0 gives each address a quarter of
// the slots (at least one) and as many again as the class has slots to wait
// in the backlog.
func newThrottleClass(key, name, flag string, limit, perClient int) *throttleClass {
	share, queue := max(limit/4, 1), max(limit/4, 1)+limit
	if perClient > 0 {
		share, queue = min(perClient, limit), perClient
	}
	return &throttleClass{key: key, name: name, flag: flag, fairThrottle: newFairThrottle(limit, 8*limit, share, queue, throttleBacklogTimeout)}
}

// newThrottles makes the four classes from the configuration.
func newThrottles(cfg Config) *throttles {
	return &throttles{
		uploads:   newThrottleClass("uploads", "uploads", "-max-uploads", cfg.MaxUploads, cfg.MaxPerClient),
		downloads: newThrottleClass("downloads", "downloads", "-max-downloads", cfg.MaxDownloads, cfg.MaxPerClient),
		pages:     newThrottleClass("pages", "page views", "-max-analyses", cfg.MaxAnalyses, cfg.MaxPerClient),
		apiReads:  newThrottleClass("api_reads", "API reads", "-max-api-reads", cfg.MaxAPIReads, cfg.MaxPerClient),
	}
}

// classOf tells which class a read belongs to: downloads under /a/; API reads
// under /api/, asking for JSON, or for a Markdown, JSON or CSV document or a
// chart image; page views otherwise.
func (t *throttles) classOf(r *http.Request) *throttleClass {
	p := r.URL.Path
	switch {
	case strings.HasPrefix(p, "/a/"):
		return t.downloads
	case page.WantsJSON(r), strings.HasSuffix(p, ".md"), strings.HasSuffix(p, ".json"), strings.HasSuffix(p, ".csv"), strings.Contains(p, "/charts/"):
		return t.apiReads
	default:
		return t.pages
	}
}

// middleware puts every request through the throttle of its class (the one
// given, or nil: the one classOf picks), as its client address's.
func (t *throttles) middleware(s *Server, fixed *throttleClass) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c := fixed
			if c == nil {
				c = t.classOf(r)
			}
			begun := time.Now()
			release, err := c.acquire(r.Context(), clientKey(r))
			if err != nil {
				if errors.Is(err, context.Canceled) {
					return // the client has gone
				}
				s.observeThrottleWait(c, time.Since(begun))
				w.Header().Set("Retry-After", "5")
				s.writeError(w, r, c.refusal(err))
				return
			}
			s.observeThrottleWait(c, time.Since(begun))
			defer release()
			next.ServeHTTP(w, r)
		})
	}
}

// refusal is the 429 of a request the class's throttle refused.
func (c *throttleClass) refusal(err error) error {
	switch {
	case errors.Is(err, errClientShare):
		return serrors.Errorf(http.StatusTooManyRequests, "too many %s at once from your address (at most %d going or waiting, -max-per-client): try again in 5 s", c.name, c.queue)
	case errors.Is(err, errBacklogFull):
		return serrors.Errorf(http.StatusTooManyRequests, "the server is busy: all %d slots for %s are taken and %d requests wait (%s): try again in 5 s", c.slots, c.name, c.backlog, c.flag)
	default:
		return serrors.Errorf(http.StatusTooManyRequests, "the server is busy: no slot for %s came free within %v (%s): try again in 5 s", c.name, throttleBacklogTimeout, c.flag)
	}
}

// String describes the class's load for /healthz.
func (c *throttleClass) String() string {
	busy, waiting := c.load()
	return fmt.Sprintf("the %s throttle is saturated: %d of %d busy, %d waiting (%s)", c.name, busy, c.slots, waiting, c.flag)
}

// The ways a fairThrottle refuses a request.
var (
	errClientShare = errors.New("the client address has its share of the class")
	errBacklogFull = errors.New("the backlog is full")
	errBacklogWait = errors.New("no slot came free in time")
)

// fairThrottle bounds the requests of a class served at once (slots), with
// a backlog of others waiting for a slot up to a timeout, and gives each client
// address a share: at most share slots held and queue requests going or
// waiting. A slot that comes free goes to the waiting request whose address
// had its last slot longest ago (roundRobin), among those below their share:
// a newcomer is served before an address that already holds slots, however
// many requests that one has waiting.
type fairThrottle struct {
	slots, backlog int
	share, queue   int
	timeout        time.Duration

	mu      sync.Mutex
	busy    int
	held    map[string]int // slots held, by address
	pending map[string]int // requests going or waiting, by address
	waiting roundRobin[*throttleWaiter]
}

// throttleWaiter is a request waiting for a slot; ready is closed when it is
// given one.
type throttleWaiter struct {
	ready   chan struct{}
	granted bool
}

func newFairThrottle(slots, backlog, share, queue int, timeout time.Duration) *fairThrottle {
	return &fairThrottle{slots: max(slots, 1), backlog: backlog, share: max(share, 1), queue: max(queue, 1), timeout: timeout,
		held: map[string]int{}, pending: map[string]int{}}
}

// acquire takes a slot for client, waiting in the backlog for one when none
// is free, and returns the function that gives it back; or says why not.
func (f *fairThrottle) acquire(ctx context.Context, client string) (release func(), err error) {
	f.mu.Lock()
	if f.pending[client] >= f.queue {
		f.mu.Unlock()
		return nil, errClientShare
	}
	release = func() { f.release(client) }
	if f.busy < f.slots && f.held[client] < f.share {
		f.pending[client]++
		f.grantLocked(client)
		f.waiting.served(client)
		f.mu.Unlock()
		return release, nil
	}
	if f.waiting.len() >= f.backlog {
		f.mu.Unlock()
		return nil, errBacklogFull
	}
	f.pending[client]++
	w := &throttleWaiter{ready: make(chan struct{})}
	f.waiting.push(client, w)
	f.mu.Unlock()

	timer := time.NewTimer(f.timeout)
	defer timer.Stop()
	select {
	case <-w.ready:
		return release, nil
	case <-timer.C:
		err = errBacklogWait
	case <-ctx.Done():
		err = ctx.Err()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if w.granted { // given a slot as it gave up: keep it
		return release, nil
	}
	f.waiting.remove(w)
	f.dropLocked(f.pending, client)
	return nil, err
}

// grantLocked gives client a slot; f.mu is held.
func (f *fairThrottle) grantLocked(client string) {
	f.busy++
	f.held[client]++
}

// release gives back client's slot and hands the free ones on.
func (f *fairThrottle) release(client string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.busy--
	f.dropLocked(f.held, client)
	f.dropLocked(f.pending, client)
	for f.busy < f.slots {
		owner, w, ok := f.waiting.next(func(owner string, _ *throttleWaiter) bool { return f.held[owner] < f.share })
		if !ok {
			break
		}
		f.grantLocked(owner)
		w.granted = true
		close(w.ready)
	}
}

// dropLocked counts one less for client in m, forgetting it at zero, so the
// maps hold only the addresses with requests going or waiting.
func (f *fairThrottle) dropLocked(m map[string]int, client string) {
	if m[client]--; m[client] <= 0 {
		delete(m, client)
	}
}

// load is the slots busy and the requests waiting.
func (f *fairThrottle) load() (busy, waiting int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.busy, f.waiting.len()
}
