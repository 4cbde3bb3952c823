package watch_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/metrics"
	storesqlite "github.com/leakui/leakui/store/sqlite"
	"github.com/leakui/leakui/watch"
	"github.com/leakui/leakui/watch/watcher"
	"github.com/leakui/leakui/web"
)

// staleGauge is leakui_watch_stale{watch="name"} as /metrics serves it, -1
// when it is not there.
func staleGauge(t *testing.T, m *metrics.Metrics, name string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), `leakui_watch_stale{watch="`+name+`"} `); ok {
			return v
		}
	}
	return "-1"
}

// A JVM watch pushed to every second by a clock, with -watch-stale-after 2,
// is not stale while its pushes come; once they stop, it turns stale two
// periods after its last push, on /watch, its page ("stale since …" beside
// its verdict), its JSON (stale, stale_since) and /metrics
// (leakui_watch_stale 1); a push makes it fresh again.
func TestJVMWatchTurnsStaleWhenItsPushesStop(t *testing.T) {
	ctx := context.Background()
	db, err := storesqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("broker-push-token-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := watch.Parse("broker=jvm,every=1s,keep=8,token=file:" + tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	const staleAfter = 2
	w := watcher.New(watcher.Config{Store: db, Logger: quietLogger(), Budget: analyze.NewBudget(256 << 20), StaleAfter: staleAfter}, []watch.Declaration{d})
	t.Cleanup(w.CloseIdleConnections)
	if err := w.Declare(ctx); err != nil {
		t.Fatal(err)
	}
	m := metrics.New(metrics.Sources{Watches: w.Statuses})
	ts := (&fixture{db: db, w: w, source: source{w, db}}).server(t, web.Config{})

	var bundles [][]byte
	for _, name := range []string{"jvm-unclosed-gzip-before.tar.gz", "jvm-unclosed-gzip-after.tar.gz"} {
		b, err := os.ReadFile(fixtures.Path(t, "capture", name))
		if err != nil {
			t.Fatal(err)
		}
		bundles = append(bundles, b)
	}
	type state struct {
		Stale      bool      `json:"stale"`
		StaleSince time.Time `json:"stale_since"`
		LastScrape time.Time `json:"last_scrape"`
		Verdict    string    `json:"verdict"`
	}
	look := func() (state, string, string, string) {
		t.Helper()
		code, _, body := get(t, ts, "/watch/broker.json")
		var s state
		if code != http.StatusOK || json.Unmarshal(body, &s) != nil {
			t.Fatalf("/watch/broker.json: %d %s", code, body)
		}
		_, _, pg := get(t, ts, "/watch/broker")
		_, _, list := get(t, ts, "/watch")
		return s, doc(t, pg).Find(testid("watch-stale")).Text(), doc(t, list).Find(testid("watch-stale")).Text(), staleGauge(t, m, "broker")
	}

	// The JVM pushes at each tick of a one-second clock, and each push is
	// followed by a look while the next is due.
	clock := time.NewTicker(time.Second)
	for i, b := range bundles {
		if i > 0 {
			<-clock.C
		}
		if _, err := w.Push(ctx, "broker", b, time.Now()); err != nil {
			t.Fatalf("push %d: %v", i, err)
		}
		if s, pg, list, gauge := look(); s.Stale || pg != "" || list != "" || gauge != "0" {
			t.Errorf("after push %d: stale %v (%q, %q), leakui_watch_stale %s; want fresh", i, s.Stale, pg, list, gauge)
		}
	}
	clock.Stop()
	s, _, _, _ := look()
	last := s.LastScrape
	if s.Verdict != string(watch.Leak) {
		t.Errorf("the two bundles read %q, want a leak", s.Verdict)
	}

	// The pushes stop: stale from two periods after the last push on.
	want := last.Add(staleAfter * time.Second)
	if wait := time.Until(want); wait > 0 {
		time.Sleep(wait + 50*time.Millisecond)
	}
	s, pg, list, gauge := look()
	if !s.Stale || !s.StaleSince.Equal(want) {
		t.Errorf("JSON: stale %v since %v, want since %v (last push %v and 2 s)", s.Stale, s.StaleSince, want, last)
	}
	if !strings.HasPrefix(pg, "stale since ") || !strings.HasPrefix(list, "stale since ") {
		t.Errorf("page %q, list %q: want stale since …", pg, list)
	}
	if gauge != "1" {
		t.Errorf("leakui_watch_stale %s, want 1", gauge)
	}
	if s.Verdict != string(watch.Leak) {
		t.Errorf("a stale watch's verdict %q, want its last push's leak", s.Verdict)
	}

	// A push brings it back.
	if _, err := w.Push(ctx, "broker", bundles[1], time.Now()); err != nil {
		t.Fatal(err)
	}
	if s, pg, _, gauge := look(); s.Stale || pg != "" || gauge != "0" {
		t.Errorf("after a new push: stale %v %q, leakui_watch_stale %s; want fresh", s.Stale, pg, gauge)
	}
}
