package web

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5"

	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/incidents"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/view"
)

// The bounds of the incident timeline images kept: a 1200×630 timeline is
// 50 to 150 kB.
const (
	incidentImageEntries = 32
	incidentImageBytes   = 16 << 20
)

// incidentWiring joins the incident pages to the server: the store, the
// loaders of every kind of evidence (incident_evidence.go) and the cache of
// what evidence says, charged to the memory budget.
type incidentWiring struct {
	s       *Server
	sources *kind.Cache[incidents.Source]
}

// incidentPages joins the incident pages to the server's other pages: the
// cards and the "attach to incident" offer around them, their layout and who
// may read them.
type incidentPages struct{ *Server }

// incidentResource builds the incidents resource over the server; ok is
// false when the store keeps no incidents.
func (s incidentPages) incidentResource() (incidents.Resource, bool) {
	st, ok := s.store.(incidents.Store)
	if !ok {
		return incidents.Resource{}, false
	}
	iw := incidentWiring{s: s.Server,
		sources: kind.Register(s.caches, "incident evidence", kind.NewSizedCache(incidentSourceEntries, 32<<20, incidents.SourceCost))}
	images := kind.Register(s.caches, "incident timelines",
		kind.NewSizedCache(incidentImageEntries, incidentImageBytes, func(b []byte) int64 { return int64(len(b)) }))
	return incidents.Resource{Store: st, Load: iw.source, Render: s.renderIncident, Handle: s.handle,
		Budget: s.budget, Images: images, Allow: s.allowIncidents}, true
}

// mountIncidents mounts the incident pages (/i), their API (/api/incidents)
// the report and run pages' "attach to incident" form and their cards, the
// PNG their og:image names.
func (s incidentPages) mountIncidents(r chi.Router) {
	rs, ok := s.incidentResource()
	if !ok {
		s.log.Warn("the store keeps no incidents: /i is off")
		return
	}
	r.Mount("/i", rs.Routes())
	r.Mount("/api/incidents", rs.APIRoutes())
	r.Post("/r/{id}/incident", rs.AttachReport())
	r.Post("/runs/{id}/incident", rs.AttachRun())
	r.Get("/r/{id}/card.png", s.handle(rs.Card(store.EvidenceReport)))
	r.Get("/runs/{id}/card.png", s.handle(rs.Card(store.EvidenceRun)))
}

// renderIncident renders an incident page as render does, with the timeline's
// script and stylesheet.
func (s incidentPages) renderIncident(w http.ResponseWriter, r *http.Request, status int, p view.Page, content templ.Component) error {
	p = s.page(p)
	p.Styles = append(p.Styles, s.assets.url("incident.css"))
	p.Scripts = append(p.Scripts, s.assets.url("incident.js"))
	var buf bytes.Buffer
	ctx := templ.WithChildren(r.Context(), content)
	if err := view.Layout(p).Render(ctx, &buf); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, err := w.Write(page.ValidUTF8(buf.Bytes()))
	return err
}

// allowIncidents lets those read incidents who may list reports: everyone on
// a server without a token, else those who carry it (s.access has refused
// writes without it already).
func (s incidentPages) allowIncidents(r *http.Request) error {
	if s.authorized(r) {
		return nil
	}
	return s.unauthorized(r)
}

// incidentParts puts the incident parts around a root page's content
// (incidents.Around): the open incidents on the dashboard, the "attach to
// incident" form on a report's or run's page, for those who may read
// incidents. A store without incidents, or one that fails to list them,
// leaves the page as it is: the page matters more than the offer.
func (s incidentPages) incidentParts(r *http.Request, content templ.Component) templ.Component {
	st, ok := s.store.(incidents.Store)
	if !ok || !s.authorized(r) {
		return content
	}
	c, err := incidents.Around(r.Context(), st, r.URL.Path, content)
	if err != nil {
		s.log.Warn("listing the open incidents", "err", err)
		return content
	}
	return c
}

// cardImage is the og:image of a report's or run's page, "" for any other page
// or a server whose store keeps no incidents (no cards then).
func (s incidentPages) cardImage(r *http.Request) string {
	if _, ok := s.store.(incidents.Store); !ok {
		return ""
	}
	path := r.URL.Path
	for _, prefix := range []string{"/r/", "/runs/"} {
		if id, ok := strings.CutPrefix(path, prefix); ok && store.ValidID(id) {
			return page.Absolute(r, path+"/card.png")
		}
	}
	return ""
}
