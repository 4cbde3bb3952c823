package golden

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/go-chi/chi/v5"
)

// Route is one route of a chi router: a method and the pattern chi matched.
type Route struct {
	Method, Pattern string
}

func (r Route) String() string { return r.Method + " " + r.Pattern }

// route makes a Route, its pattern without the trailing slash chi.Walk gives a
// mounted router's root ("/runs/") and a request to it reports ("/runs").
func route(method, pattern string) Route {
	if len(pattern) > 1 {
		pattern = strings.TrimSuffix(pattern, "/")
	}
	return Route{method, pattern}
}

// Routes lists every route of a router, mounted sub-routers included, sorted.
func Routes(r chi.Routes) ([]Route, error) {
	var out []Route
	err := chi.Walk(r, func(method, pattern string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		out = append(out, route(method, pattern))
		return nil
	})
	slices.SortFunc(out, func(a, b Route) int { return strings.Compare(a.String(), b.String()) })
	return out, err
}

// Tracker serves requests with a chi router's handler and notes the route each
// one reached. It hands the router a routing context of its own, which chi
// fills in and uses instead of making one.
type Tracker struct {
	handler http.Handler
	routes  chi.Routes

	mu   sync.Mutex
	hits map[Route]int
	last Route
}

// NewTracker serves with handler, whose router is routes (the same router, or
// the handler that wraps it).
func NewTracker(handler http.Handler, routes chi.Routes) *Tracker {
	return &Tracker{handler: handler, routes: routes, hits: map[Route]int{}}
}

// ServeHTTP serves the request and notes its route, before the first byte of
// the answer leaves: a client that has the answer finds its route noted.
func (t *Tracker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rctx := chi.NewRouteContext()
	rctx.Routes = t.routes
	tw := &trackedWriter{ResponseWriter: w}
	tw.note = func() {
		rt := route(r.Method, rctx.RoutePattern())
		t.mu.Lock()
		t.hits[rt]++
		t.last = rt
		t.mu.Unlock()
	}
	t.handler.ServeHTTP(tw, r.WithContext(context.WithValue(r.Context(), chi.RouteCtxKey, rctx)))
	tw.once.Do(tw.note) // a handler that wrote nothing
}

// trackedWriter notes the route once, when the handler first writes.
type trackedWriter struct {
	http.ResponseWriter
	once sync.Once
	note func()
}

func (w *trackedWriter) WriteHeader(code int) {
	w.once.Do(w.note)
	w.ResponseWriter.WriteHeader(code)
}

func (w *trackedWriter) Write(b []byte) (int, error) {
	w.once.Do(w.note)
	return w.ResponseWriter.Write(b)
}

// Flush lets server-sent events stream through.
func (w *trackedWriter) Flush() {
	w.once.Do(w.note)
	http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *trackedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Last is the route of the last request served.
func (t *Tracker) Last() Route {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last
}

// Uncovered lists the routes of all that no request reached.
func (t *Tracker) Uncovered(all []Route) []Route {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []Route
	for _, r := range all {
		if t.hits[r] == 0 {
			out = append(out, r)
		}
	}
	return out
}

// Reached lists the routes requests reached, with how many reached each, for
// a failure message.
func (t *Tracker) Reached() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := make([]string, 0, len(t.hits))
	for r, n := range t.hits {
		lines = append(lines, fmt.Sprintf("%s (%d)", r, n))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
