package incidents

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/incident"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/view"
)

// Store is what the incident pages need from persistence.
type Store interface {
	CreateIncident(ctx context.Context, in *store.Incident) error
	Incident(ctx context.Context, slug string) (*store.Incident, error)
	SearchIncidents(ctx context.Context, s store.IncidentSearch) ([]store.Incident, error)
	SetIncidentState(ctx context.Context, slug, state string) error
	Attach(ctx context.Context, slug, kind, id string) error
	Detach(ctx context.Context, slug, kind, id string) error
	IncidentEvidence(ctx context.Context, slug, after string, limit int) ([]store.Evidence, error)
	Annotate(ctx context.Context, slug string, a *store.Annotation) error
	DeleteAnnotation(ctx context.Context, slug, id string) error
	Annotations(ctx context.Context, slug, after string, limit int) ([]store.Annotation, error)
}

// Source is one attached report or run as the incident shows it: what its
// analysis judged, and what it contributes to the timeline (kind.Evidence,
// which the kinds of evidence give).
type Source = kind.Evidence

// Loader turns one attached report or run into its Source with its kind's own
// analysis. An error that is the server's state (analyze.ErrBusy, a cancelled
// request) fails the request; any other error shows the evidence as unreadable.
type Loader func(ctx context.Context, e store.Evidence) (Source, error)

// ImageCache keeps rendered timeline images by key; the web root's cache
// charges what it keeps to the memory budget.
type ImageCache interface {
	Get(key string) ([]byte, bool)
	Add(key string, png []byte)
}

// Resource serves incidents. Every field is required.
type Resource struct {
	Store  Store
	Load   Loader
	Render page.Renderer
	// Handle turns a handler that returns its error into an http.HandlerFunc
	// (the root's error page and JSON).
	Handle func(page.HandlerFunc) http.HandlerFunc
	// Budget is the server's memory budget: a timeline image charges what it
	// renders with (pngchart.Cost) before it renders.
	Budget *analyze.Budget
	Images ImageCache
	// Allow says whether a request may read incidents: nil when it may, else
	// the error to answer. An incident lists the ids of its reports, which are
	// what protects a report on a server with a token, and a slug is easy to
	// guess: on such a server only those who may list reports read incidents.
	Allow func(r *http.Request) error
}

// Routes are the pages under /i.
func (rs Resource) Routes() chi.Router {
	r := chi.NewRouter()
	r.Use(rs.allow)
	h := rs.Handle
	r.Get("/", h(rs.list))
	r.Post("/", h(rs.create))
	r.Get("/{ref}", h(rs.show))
	r.Get("/{slug}/timeline.png", h(rs.timelinePNG))
	r.Post("/{slug}/annotations", h(rs.annotate))
	r.Post("/{slug}/annotations/{id}/delete", h(rs.deleteAnnotation))
	r.Post("/{slug}/state", h(rs.setState))
	r.Post("/{slug}/evidence", h(rs.attach))
	r.Post("/{slug}/evidence/detach", h(rs.detach))
	return r
}

// APIRoutes are the JSON API under /api/incidents.
func (rs Resource) APIRoutes() chi.Router {
	r := chi.NewRouter()
	r.Use(rs.allow)
	h := rs.Handle
	r.Get("/", h(rs.list))
	r.Post("/", h(rs.create))
	r.Get("/{ref}", h(rs.show))
	r.Post("/{slug}/annotations", h(rs.annotate))
	r.Delete("/{slug}/annotations/{id}", h(rs.deleteAnnotation))
	r.Post("/{slug}/state", h(rs.setState))
	r.Post("/{slug}/evidence", h(rs.attach))
	r.Delete("/{slug}/evidence/{kind}/{id}", h(rs.detach))
	return r
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

// AttachReport is POST /r/{id}/incident, the report page's "attach to
// incident" form: slug names the incident.
func (rs Resource) AttachReport() http.HandlerFunc {
	return rs.Handle(func(w http.ResponseWriter, r *http.Request) error {
		return rs.attachFrom(w, r, store.EvidenceReport, page.URLParam(r, "id"))
	})
}

// AttachRun is POST /runs/{id}/incident, the run page's form.
func (rs Resource) AttachRun() http.HandlerFunc {
	return rs.Handle(func(w http.ResponseWriter, r *http.Request) error {
		return rs.attachFrom(w, r, store.EvidenceRun, page.URLParam(r, "id"))
	})
}

// render renders an incident page: the layout around c, with the page's
// title, its verdict as the description and its image for link unfurls.
func (rs Resource) render(w http.ResponseWriter, r *http.Request, status int, p view.Page, c templ.Component) error {
	p.Nav = "incidents"
	return rs.Render(w, r, status, p, c)
}

// loadSource loads one piece of evidence; an error of the analysis makes it
// evidence without a verdict that says so.
func (rs Resource) loadSource(ctx context.Context, e store.Evidence) (Source, error) {
	src, err := rs.Load(ctx, e)
	if err == nil {
		return src, nil
	}
	if errors.Is(err, analyze.ErrBusy) || ctx.Err() != nil {
		return Source{}, err
	}
	ev := incident.Evidence{Kind: e.What, Title: e.Name, Strength: incident.None, Link: evidenceLink(e),
		Finding: "could not be read: " + page.Short(page.CleanText(err.Error(), 300), 200)}
	if e.Kind == store.EvidenceRun {
		ev.Kind, ev.Title = "lab run", e.What
	}
	return Source{Evidence: ev}, nil
}

// evidenceLink is the page of an attached report or run.
func evidenceLink(e store.Evidence) string {
	if e.Kind == store.EvidenceRun {
		return page.RunURL(e.ID)
	}
	return page.ReportURL(e.ID)
}

// URL is an incident's page, /i/{slug}; slugs need no escaping.
func URL(slug string) string { return "/i/" + slug }

// MarkdownURL is an incident's Markdown summary.
func MarkdownURL(slug string) string { return URL(slug) + ".md" }

// JSONURL is an incident's JSON twin.
func JSONURL(slug string) string { return URL(slug) + ".json" }

// TimelineURL is an incident's timeline image.
func TimelineURL(slug string) string { return URL(slug) + "/timeline.png" }

// formatTime shows a time as the pages do, "" for none.
func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return page.FormatTime(t)
}
