package web

import (
	"bytes"
	"net/http"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5"

	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/view"
	webwatch "github.com/leakui/leakui/web/watch"
)

// WatchSource is what the watch pages read of the watches an operator
// declared (Config.Watches): their state, the snapshots they hold and the
// alerts their changes delivered. serve sets it when it runs watches; nil
// lists none, and the top bar shows no link to them.
type WatchSource = webwatch.Source

// The bounds of the watches' series kept between two scrapes: numbers only,
// a few kilobytes a watch.
const (
	watchAnalysisEntries = 256
	watchAnalysisBytes   = 16 << 20
)

// mountWatches mounts the watch pages (/watch, /watch/{name}) and the list's
// JSON twin (/watch.json). They answer on a server without watches too, with
// none listed.
func (s *Server) mountWatches(r chi.Router) {
	rs := webwatch.Resource{Source: s.cfg.Watches, Render: s.renderWatch, Handle: s.handle, Budget: s.deps.Analysis,
		Cache: kind.Register(s.caches, "watch series", kind.NewSizedCache(watchAnalysisEntries, watchAnalysisBytes, webwatch.Cost)),
		Allow: s.allowWatches}
	r.Mount(webwatch.ListURL, rs.Routes())
	r.Get(webwatch.ListJSONURL, rs.ListJSON())
}

// renderWatch renders a watch page as render does, with the script that
// keeps it live and the watches' stylesheet (which s.page adds to every page
// of a server with watches, for the top bar's link).
func (s *Server) renderWatch(w http.ResponseWriter, r *http.Request, status int, p view.Page, content templ.Component) error {
	p = s.page(p)
	if !p.Watches {
		p.Styles = append(p.Styles, s.assets.url("watch.css"))
	}
	p.Scripts = append(p.Scripts, s.assets.url("watch.js"))
	var buf bytes.Buffer
	if err := view.Layout(p).Render(templ.WithChildren(r.Context(), content), &buf); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, err := w.Write(page.ValidUTF8(buf.Bytes()))
	return err
}

// allowWatches lets those read the watches who may list reports: everyone on
// a server without a token, else those who carry it. A watch names its
// target, an address inside the operator's network.
func (s *Server) allowWatches(r *http.Request) error {
	if s.authorized(r) {
		return nil
	}
	return s.unauthorized(r)
}
