package web

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/web/incidents"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
	"github.com/leakui/leakui/web/view"
)

// handle wraps a page.HandlerFunc into an http.Handler.
func (s *Server) handle(h page.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	}
}

// writeError renders an error as JSON for API callers and as a page for browsers,
// logging only server errors.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	if cut := cutBody(r); cut != nil {
		err = cut // whatever the handler made of the failed read, it is a 408
	}
	status, msg := serrors.StatusOf(err)
	if r.Context().Err() == context.DeadlineExceeded {
		status, msg = http.StatusServiceUnavailable, "the request took too long and was stopped"
	}
	if errors.Is(err, analyze.ErrBusy) {
		w.Header().Set("Retry-After", "5")
		s.countBudgetRefusal(r, err)
	}
	if status >= 500 {
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "status", status,
			"request_id", middleware.GetReqID(r.Context()), "err", err)
	}
	msg = serrors.OneLine(msg)
	details := serrors.DetailsOf(err)
	if page.WantsJSON(r) {
		body := map[string]string{"error": msg}
		if details != "" {
			body["details_url"] = page.Absolute(r, details)
		}
		page.JSON(w, status, body)
		return
	}
	var buf bytes.Buffer
	pg := s.page(view.Page{Title: http.StatusText(status)})
	c := view.Layout(pg)
	ctx := templ.WithChildren(r.Context(), view.ErrorPage(status, http.StatusText(status), msg, details))
	if rerr := c.Render(ctx, &buf); rerr != nil {
		http.Error(w, msg, status)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(page.ValidUTF8(buf.Bytes()))
}

// render renders a page (layout around content) into a buffer, then writes it, so
// a rendering error still becomes a proper status.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, p view.Page, content templ.Component) error {
	p = s.page(p)
	if p.Image == "" {
		p.Image = incidentPages{s}.cardImage(r)
	}
	content = incidentPages{s}.incidentParts(r, content)
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

// page adds the stylesheet and scripts every page loads.
func (s *Server) page(p view.Page) view.Page {
	p.CSS = s.assets.url("app.css")
	p.Icon = s.assets.url("favicon.svg")
	p.VendorStyles = []string{s.assets.url("vendor/uplot/uPlot.min.css")}
	p.Styles = append([]string{s.assets.url("navigate.css")}, p.Styles...) // and the page's own
	_, p.Incidents = s.store.(incidents.Store)
	if p.Watches = s.cfg.Watches != nil; p.Watches {
		p.Styles = append(p.Styles, s.assets.url("watch.css")) // the top bar's fifth link wraps on a phone
	}
	p.Scripts = []string{s.assets.url("app.js"), s.assets.url("flame.js"), s.assets.url("vendor/uplot/uPlot.iife.min.js"), s.assets.url("charts.js"), s.assets.url("copy.js"), s.assets.url("run.js"), s.assets.url("log.js"), s.assets.url("heapdump.js")}
	return p
}

// slogFormatter logs one line per request through slog.
type slogFormatter struct{ log *slog.Logger }

func (f slogFormatter) NewLogEntry(r *http.Request) middleware.LogEntry {
	return &slogEntry{log: f.log.With("method", r.Method, "path", r.URL.Path,
		"client", page.ClientIP(r), "request_id", middleware.GetReqID(r.Context()))}
}

type slogEntry struct{ log *slog.Logger }

func (e *slogEntry) Write(status, bytes int, _ http.Header, elapsed time.Duration, _ any) {
	e.log.Info("request", "status", status, "bytes", bytes, "ms", elapsed.Milliseconds())
}

func (e *slogEntry) Panic(v any, stack []byte) {
	e.log.Error("panic", "panic", v, "stack", string(stack))
}
