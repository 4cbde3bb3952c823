package watch

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/watch"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/view"
)

// Source is what the pages read of the watches: their state (the watcher's
// Statuses), the snapshots a watch holds, oldest first, and the latest alert
// deliveries of a watch, newest first (the store's).
type Source interface {
	Statuses(ctx context.Context) ([]watch.Status, error)
	WatchSnapshots(ctx context.Context, name string) ([]store.WatchSnapshot, error)
	Deliveries(ctx context.Context, watch string, limit int) ([]store.Delivery, error)
}

// Cache keeps the series analyzed from a watch's snapshots, by watch and
// scrape; the web root's cache charges what it keeps to the memory budget.
type Cache interface {
	Get(key string) (*Analysis, bool)
	Add(key string, a *Analysis)
}

// Resource serves the watch pages. Source may be nil (a server without
// watches lists none); every other field but Cache is required.
type Resource struct {
	Source Source
	Render page.Renderer
	// Handle turns a handler that returns its error into an http.HandlerFunc
	// (the root's error page and JSON).
	Handle func(page.HandlerFunc) http.HandlerFunc
	// Budget returns the budget of one request's analysis (a share of the
	// server's memory budget, charged to it too), charged with the snapshots
	// and profiles the request holds; it is released when the request ends.
	Budget func() *analyze.Budget
	Cache  Cache
	// Allow says whether a request may read the watches: nil when it may,
	// else the error to answer.
	Allow func(r *http.Request) error
}

// MaxDeliveries is how many of a watch's latest deliveries its page shows.
const MaxDeliveries = 20

// Routes are the pages under /watch; ListJSON is /watch.json beside them.
func (rs Resource) Routes() chi.Router {
	r := chi.NewRouter()
	r.Use(rs.allow)
	h := rs.Handle
	r.Get("/", h(rs.list))
	r.Get("/{name}", h(rs.show))
	r.Get("/{name}/snapshots/{tick}/{profile}", h(rs.download))
	return r
}

// ListJSON is /watch.json, the list's JSON twin.
func (rs Resource) ListJSON() http.HandlerFunc {
	return rs.allow(rs.Handle(rs.listJSON)).ServeHTTP
}

// allow refuses every request Allow refuses.
func (rs Resource) allow(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := rs.Allow(r); err != nil {
			rs.Handle(func(http.ResponseWriter, *http.Request) error { return err })(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// render renders a watch page: the layout around c, with the watch section
// marked in the top bar.
func (rs Resource) render(w http.ResponseWriter, r *http.Request, status int, p view.Page, c templ.Component) error {
	p.Nav = "watches"
	return rs.Render(w, r, status, p, c)
}

// ListURL is the list of watches.
const ListURL = "/watch"

// ListJSONURL is the list's JSON twin.
const ListJSONURL = "/watch.json"

// URL is a watch's page; names are letters, digits, '.', '_' and '-', but
// the name is escaped all the same.
func URL(name string) string { return ListURL + "/" + url.PathEscape(name) }

// JSONURL is a watch's JSON twin.
func JSONURL(name string) string { return URL(name) + ".json" }

// SnapshotURL downloads one profile of one snapshot, named by its tick in
// Unix milliseconds.
func SnapshotURL(name string, tickMillis int64, profile string) string {
	return URL(name) + "/snapshots/" + strconv.FormatInt(tickMillis, 10) + "/" + profile
}
