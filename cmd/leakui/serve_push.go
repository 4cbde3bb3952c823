package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/watch"
	"github.com/leakui/leakui/watch/watcher"
)

// This file serves the pushes of the JVM watches: POST
// /api/watches/{name}/bundles with a `leakui capture jvm` bundle as its body
// and "Authorization: Bearer TOKEN", TOKEN the watch's push token (its
// declaration's token=env:VAR or token=file:PATH). The token lets its holder
// push to that watch and do nothing else: it is not the server's -token, and
// the web's routes do not take it.

// pushPrefix and pushSuffix frame a push's path.
const (
	pushPrefix  = "/api/watches/"
	pushSuffix  = "/bundles"
	pushPattern = pushPrefix + "{name}" + pushSuffix
)

// maxPushes bounds the pushes verified at once; more are answered 503 with
// Retry-After.
const maxPushes = 2

// pushReadTimeout bounds reading a push's body: a slow pusher does not hold a
// connection and a verdict's turn longer.
const pushReadTimeout = 2 * time.Minute

// pushAnswerJSON is a push's answer: the watch's state after it.
type pushAnswerJSON struct {
	Watch         string  `json:"watch"`
	Verdict       string  `json:"verdict"`
	Suspect       string  `json:"suspect,omitempty"`
	GrowthPerHour float64 `json:"growth_per_hour"`
	Unit          string  `json:"unit,omitempty"`
	Reason        string  `json:"reason,omitempty"`
	Snapshots     int     `json:"snapshots"`
	Keep          int     `json:"keep"`
	ReportURL     string  `json:"report_url,omitempty"`
	Error         string  `json:"error,omitempty"`
}

// pushName returns the watch a request pushes to, when it is a push's path.
func pushName(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, pushPrefix)
	if !ok {
		return "", false
	}
	name, ok := strings.CutSuffix(rest, pushSuffix)
	if !ok || name == "" || strings.Contains(name, "/") {
		return "", false
	}
	return name, true
}

// withPushes serves the JVM watches' pushes in front of next, when a watcher
// runs; everything else goes to next.
func (m *Main) withPushes(next http.Handler, bg *background, hosts []string) http.Handler {
	if bg.watcher == nil {
		return next
	}
	allowed := newHostList(hosts)
	slots := make(chan struct{}, maxPushes)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := pushName(r.URL.Path)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		if rctx := chi.RouteContext(r.Context()); rctx != nil {
			rctx.RoutePatterns = []string{pushPattern}
		}
		answer := func(code int, a pushAnswerJSON) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(code)
			json.NewEncoder(w).Encode(a)
		}
		fail := func(code int, msg string) { answer(code, pushAnswerJSON{Watch: name, Error: msg}) }
		switch {
		case r.Context().Value(http.LocalAddrContextKey) != nil && !allowed.allows(r.Host):
			fail(http.StatusMisdirectedRequest, "this server does not answer to this host name")
			return
		case r.Method != http.MethodPost:
			w.Header().Set("Allow", "POST")
			fail(http.StatusMethodNotAllowed, r.Method+" is not allowed: POST a capture bundle")
			return
		}
		token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if err := bg.watcher.Authorize(name, strings.TrimSpace(token)); err != nil {
			if errors.Is(err, watcher.ErrNotPushed) {
				fail(http.StatusNotFound, "no JVM watch "+visible(name)+" is declared on this server (-watch NAME=jvm,token=…)")
				return
			}
			if !errors.Is(err, watcher.ErrToken) {
				m.log.Error("a push's token could not be read", "watch", name, "err", err)
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="leakui watch push"`)
			fail(http.StatusUnauthorized, "a push needs Authorization: Bearer with the watch's push token")
			return
		}
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
		default:
			w.Header().Set("Retry-After", "5")
			fail(http.StatusServiceUnavailable, "other pushes are being verified; try again shortly")
			return
		}
		if r.ContentLength > bg.watcher.MaxBundleBytes() {
			fail(http.StatusRequestEntityTooLarge, "a pushed bundle is at most "+analyze.FormatBytes(bg.watcher.MaxBundleBytes()))
			return
		}
		rc := http.NewResponseController(w)
		rc.SetReadDeadline(time.Now().Add(pushReadTimeout))
		limit := bg.watcher.MaxBundleBytes()
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			fail(http.StatusRequestEntityTooLarge, "a pushed bundle is at most "+analyze.FormatBytes(limit))
			return
		case err != nil:
			fail(http.StatusBadRequest, "reading the bundle: "+err.Error())
			return
		}
		st, err := bg.watcher.Push(r.Context(), name, body, time.Now())
		if err != nil {
			code, msg := pushStatus(err)
			if code >= 500 {
				m.log.Error("a push was not stored", "watch", name, "err", err)
			}
			if code == http.StatusServiceUnavailable {
				w.Header().Set("Retry-After", "30")
			}
			fail(code, msg)
			return
		}
		answer(http.StatusCreated, pushAnswerOf(st, m.watchReportURL(name)))
	})
}

// pushStatus maps a push's error to its status and message.
func pushStatus(err error) (int, string) {
	switch {
	case errors.Is(err, analyze.ErrTooLarge):
		return http.StatusRequestEntityTooLarge, visible(err.Error())
	case errors.Is(err, analyze.ErrBusy):
		return http.StatusServiceUnavailable, visible(err.Error())
	case errors.Is(err, watcher.ErrNotJVM), errors.Is(err, analyze.ErrMalformed), errors.Is(err, analyze.ErrEmpty),
		errors.Is(err, analyze.ErrUnsupportedKind), errors.Is(err, analyze.ErrMismatch):
		return http.StatusBadRequest, "not a JVM capture bundle: " + visible(err.Error())
	case errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound, "the watch is no longer declared"
	}
	return http.StatusInternalServerError, "the push was not stored"
}

// pushAnswerOf is the answer of a push that was stored.
func pushAnswerOf(st watch.Status, link string) pushAnswerJSON {
	return pushAnswerJSON{Watch: st.Name, Verdict: string(st.Verdict), Suspect: st.Suspect, GrowthPerHour: st.GrowthPerHour,
		Unit: st.Unit, Reason: st.Reason, Snapshots: st.Snapshots, Keep: st.Keep, ReportURL: link}
}
