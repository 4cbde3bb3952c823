package web

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5/middleware"
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
	gauge           *throttleGauge
	throttle        func(http.Handler) http.Handler
	// perClient caps the requests of the class one client address has inside
	// or waiting (nil: no cap).
	perClient *clientSlots
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
// many; perClient > 0 caps each client address at that many requests.
func newThrottleClass(key, name, flag string, limit, perClient int) *throttleClass {
	c := &throttleClass{key: key, name: name, flag: flag, gauge: &throttleGauge{limit: limit, backlog: 8 * limit}}
	c.throttle = c.gauge.wrap(middleware.ThrottleBacklog(limit, 8*limit, throttleBacklogTimeout))
	if perClient > 0 {
		c.perClient = &clientSlots{limit: perClient, held: map[string]int{}}
	}
	return c
}

// newThrottles makes the four classes from the configuration.
func newThrottles(cfg Config) *throttles {
	return &throttles{
		uploads:   newThrottleClass("uploads", "uploads", "-max-uploads", cfg.MaxUploads, cfg.MaxPerClient),
		downloads: newThrottleClass("downloads", "downloads", "-max-downloads", cfg.MaxDownloads, cfg.MaxPerClient),
		pages:     newThrottleClass("pages", "page views", "-max-analyses", cfg.MaxAnalyses, 0),
		apiReads:  newThrottleClass("api_reads", "API reads", "-max-api-reads", cfg.MaxAPIReads, 0),
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
	case wantsJSON(r), strings.HasSuffix(p, ".md"), strings.HasSuffix(p, ".json"), strings.HasSuffix(p, ".csv"), strings.Contains(p, "/charts/"):
		return t.apiReads
	default:
		return t.pages
	}
}

// middleware puts every request through the throttle of its class (the one
// given, or nil: the one classOf picks), after the class's cap per client.
func (t *throttles) middleware(s *Server, fixed *throttleClass) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		inner := map[*throttleClass]http.Handler{}
		for _, c := range t.all() {
			inner[c] = c.throttle(next)
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c := fixed
			if c == nil {
				c = t.classOf(r)
			}
			if c.perClient != nil {
				client := clientIP(r)
				if !c.perClient.acquire(client) {
					w.Header().Set("Retry-After", "5")
					s.writeError(w, r, errorf(http.StatusTooManyRequests, "too many %s at once from your address (at most %d, -max-per-client): try again in 5 s", c.name, c.perClient.limit))
					return
				}
				defer c.perClient.release(client)
			}
			inner[c].ServeHTTP(w, r)
		})
	}
}

// clientSlots counts the requests each client address has going, refusing
// more than limit. It remembers only addresses with requests going, so its
// memory is bounded by the requests in flight.
type clientSlots struct {
	limit int
	mu    sync.Mutex
	held  map[string]int
}

// acquire takes one of the client's slots, or says there is none.
func (c *clientSlots) acquire(client string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held[client] >= c.limit {
		return false
	}
	c.held[client]++
	return true
}

// release gives back a slot acquire took.
func (c *clientSlots) release(client string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held[client]--; c.held[client] <= 0 {
		delete(c.held, client)
	}
}

// saturated tells whether every slot of the class is busy or a request waits.
func (c *throttleClass) saturated() bool {
	inside, entered := c.gauge.inside.Load(), c.gauge.entered.Load()
	return inside >= int64(c.gauge.limit) || entered > inside
}

// String describes the class's load for /healthz.
func (c *throttleClass) String() string {
	inside, entered := c.gauge.inside.Load(), c.gauge.entered.Load()
	return fmt.Sprintf("the %s throttle is saturated: %d of %d busy, %d waiting (%s)", c.name, inside, c.gauge.limit, max(entered-inside, 0), c.flag)
}
