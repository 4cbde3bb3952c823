package watcher_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/watchtarget"
	"github.com/leakui/leakui/watch"
	"github.com/leakui/leakui/watch/watcher"
)

// deadURL is a loopback address nothing listens on.
func deadURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	return url
}

// Each way a scrape fails is recorded in the watch's state with its reason,
// stores no snapshot and leaves the verdict as it was.
func TestScrapeErrorsAreRecorded(t *testing.T) {
	real := watchtarget.Start(t, "steady")
	big := strings.Repeat("x", 1<<20)
	hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/missing/"):
			http.NotFound(w, r)
		case strings.HasPrefix(r.URL.Path, "/huge/"):
			w.Header().Set("Content-Length", strconv.Itoa(len(big)))
			w.Write([]byte(big))
		case strings.HasPrefix(r.URL.Path, "/chunked-huge/"):
			w.(http.Flusher).Flush() // no Content-Length: the body is cut at the limit
			for range 64 {
				w.Write([]byte(big[:32<<10]))
			}
		case strings.HasPrefix(r.URL.Path, "/html/"):
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html><body>Sign in</body></html>"))
		case strings.HasPrefix(r.URL.Path, "/elsewhere/"):
			http.Redirect(w, r, real.URL+"/debug/pprof/heap", http.StatusFound)
		case strings.HasPrefix(r.URL.Path, "/slow/"):
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		case strings.HasPrefix(r.URL.Path, "/broken/"):
			http.Error(w, "boom", http.StatusInternalServerError)
		}
	}))
	defer hostile.Close()
	cases := []struct{ name, url, want string }{
		{"down", deadURL(t), "connection refused"},
		{"missing", hostile.URL + "/missing", "not served (404)"},
		{"huge", hostile.URL + "/huge", "1048576 bytes, more than the limit of 65536"},
		{"chunked-huge", hostile.URL + "/chunked-huge", "more than the limit of 65536 bytes"},
		{"html", hostile.URL + "/html", "not a profile"},
		{"elsewhere", hostile.URL + "/elsewhere", "another origin"},
		{"slow", hostile.URL + "/slow", "no answer within 500ms"},
		{"broken", hostile.URL + "/broken", "500 Internal Server Error"},
	}
	eachDatabase(t, func(t *testing.T, db database) {
		st := db.openStore(t)
		var decls []watch.Declaration
		for _, c := range cases {
			decls = append(decls, mustParse(t, c.name+"="+c.url+",every=10s"))
		}
		rec := &recorder{}
		w := watcher.New(watcher.Config{Store: st, Notifier: rec, Logger: quietLogger(), MaxBytes: 64 << 10, Timeout: 500 * time.Millisecond}, decls)
		ctx := context.Background()
		if err := w.Declare(ctx); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now().Truncate(10 * time.Second)
		for _, c := range cases {
			begun := time.Now()
			tickAt(t, w, c.name, t0)
			if took := time.Since(begun); took > 5*time.Second {
				t.Errorf("%s: the tick took %s", c.name, took)
			}
			cur, err := st.Watch(ctx, c.name)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(cur.LastError, c.want) || cur.Failures != 1 || cur.Snapshots != 0 || cur.Verdict != "" || cur.LastScrape.IsZero() {
				t.Errorf("%s: state %+v, want the error %q, one failure, no snapshot, no verdict", c.name, cur.WatchState, c.want)
			}
		}
		if len(rec.changes) != 0 {
			t.Errorf("failed scrapes told changes: %+v", rec.changes)
		}
	})
}

// A target that keeps failing is scraped at ticks further and further apart
// (the period, then doubling, up to MaxBackoff), never at every tick; once it
// answers again, its error clears.
func TestDeadTargetIsBackedOff(t *testing.T) {
	real := watchtarget.Start(t, "steady")
	target, err := url.Parse(real.URL)
	if err != nil {
		t.Fatal(err)
	}
	var up atomic.Bool
	forward := httputil.NewSingleHostReverseProxy(target)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		forward.ServeHTTP(w, r)
	}))
	defer proxy.Close()
	eachDatabase(t, func(t *testing.T, db database) {
		up.Store(false)
		st := db.openStore(t)
		w := watcher.New(watcher.Config{Store: st, Logger: quietLogger(), MaxBackoff: 40 * time.Second},
			[]watch.Declaration{mustParse(t, "flaky="+proxy.URL+",every=10s")})
		ctx := context.Background()
		if err := w.Declare(ctx); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now().Truncate(10 * time.Second)
		at := func(i int) time.Time { return t0.Add(time.Duration(i) * 10 * time.Second) }
		var scraped []int // the ticks a scrape ran at
		failures := 0
		for i := range 16 {
			tickAt(t, w, "flaky", at(i))
			cur, _ := st.Watch(ctx, "flaky")
			if cur.Failures != failures {
				failures = cur.Failures
				scraped = append(scraped, i)
			}
		}
		// Failures 1 to 5 wait 10, 20, 40, 40 and 40 s.
		if fmt.Sprint(scraped) != "[0 1 3 7 11 15]" {
			t.Errorf("scraped at ticks %v, want [0 1 3 7 11 15]", scraped)
		}
		cur, _ := st.Watch(ctx, "flaky")
		if cur.Failures != 6 || !strings.Contains(cur.LastError, "503 Service Unavailable") || !cur.NextScrape.Equal(at(19)) {
			t.Errorf("after 6 failures: %+v", cur.WatchState)
		}
		up.Store(true)
		tickAt(t, w, "flaky", at(18)) // still backed off
		tickAt(t, w, "flaky", at(19))
		cur, _ = st.Watch(ctx, "flaky")
		if cur.Failures != 0 || cur.LastError != "" || !cur.NextScrape.IsZero() || cur.Snapshots != 1 {
			t.Errorf("once the target answers: %+v, %d snapshots", cur.WatchState, cur.Snapshots)
		}
	})
}
