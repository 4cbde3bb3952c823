package watch_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"go.uber.org/goleak"

	"github.com/leakui/leakui/internal/watchtarget"
	"github.com/leakui/leakui/store"
	storesqlite "github.com/leakui/leakui/store/sqlite"
	"github.com/leakui/leakui/watch"
	"github.com/leakui/leakui/watch/watcher"
	"github.com/leakui/leakui/web"
)

func TestMain(m *testing.M) {
	if v := os.Getenv(watchtarget.Env); v != "" {
		os.Exit(watchtarget.Main(v))
	}
	goleak.VerifyTestMain(m)
}

// source is what serve gives the web: the watcher's state and the store's
// snapshots and deliveries.
type source struct {
	w  *watcher.Watcher
	db *store.DB
}

func (s source) Statuses(ctx context.Context) ([]watch.Status, error) { return s.w.Statuses(ctx) }
func (s source) WatchSnapshots(ctx context.Context, name string) ([]store.WatchSnapshot, error) {
	return s.db.WatchSnapshots(ctx, name)
}
func (s source) Deliveries(ctx context.Context, name string, limit int) ([]store.Delivery, error) {
	return s.db.Deliveries(ctx, name, limit)
}

// fixture is a real store whose watches a real watcher ticked against real
// Go programs: "leaky" (a program that strands a goroutine and 64 KiB every
// 200 ms) until its verdict is a leak, "steady" a few ticks, and "dead.json"
// (no program listens; its name ends as a JSON twin's does) once; and a
// delivery of the leak's alert stored.
type fixture struct {
	db     *store.DB
	w      *watcher.Watcher
	source source
	// leakTicks is how many ticks the leak verdict took.
	leakTicks int
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	db, err := storesqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	leaky, steady := watchtarget.Start(t, "leaky"), watchtarget.Start(t, "steady")
	var decl []watch.Declaration
	for _, s := range []string{"leaky=" + leaky.URL + ",every=1s,keep=24", "steady=" + steady.URL + ",every=1s,keep=8",
		"dead.json=http://127.0.0.1:1,every=5s,keep=8"} {
		d, err := watch.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		decl = append(decl, d)
	}
	w := watcher.New(watcher.Config{Store: db, Logger: quietLogger(), Timeout: 5 * time.Second}, decl)
	t.Cleanup(w.CloseIdleConnections)
	if err := w.Declare(ctx); err != nil {
		t.Fatal(err)
	}
	f := &fixture{db: db, w: w, source: source{w, db}}
	t0 := time.Now().Truncate(time.Second)
	for i := range 24 {
		tick := t0.Add(time.Duration(i) * time.Second)
		if err := w.Tick(ctx, "leaky", tick); err != nil {
			t.Fatal(err)
		}
		if i < 5 {
			if err := w.Tick(ctx, "steady", tick); err != nil {
				t.Fatal(err)
			}
		}
		cur, err := db.Watch(ctx, "leaky")
		if err != nil {
			t.Fatal(err)
		}
		if cur.Verdict == string(watch.Leak) {
			f.leakTicks = i + 1
			break
		}
		time.Sleep(watchtarget.Step + 50*time.Millisecond)
	}
	if f.leakTicks == 0 {
		t.Fatal("the leaking program's watch read no leak within 24 ticks")
	}
	if err := w.Tick(ctx, "dead.json", t0); err != nil {
		t.Fatal(err)
	}
	// The leak's alert, as package alert stores it on its way to a receiver.
	d := &store.Delivery{ID: "webhook-leaky-1", Receiver: "ops-webhook", Watch: "leaky", Verdict: string(watch.Leak),
		Event: json.RawMessage(`{"watch":"leaky","verdict":"leak"}`), EventAt: t0}
	if _, err := db.CreateDelivery(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := db.RecordAttempt(ctx, d.ID, store.DeliveryAttempt{Number: 1, Status: 200, State: store.DeliveryDelivered, At: t0.Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	return f
}

// withoutWatches makes a server that runs no watches (serve without -watch).
const withoutWatches = true

// server is a real leakui web server over the fixture's store and its
// watches, or none with withoutWatches.
func (f *fixture) server(t *testing.T, cfg web.Config, without ...bool) *httptest.Server {
	t.Helper()
	cfg.Store, cfg.TempDir, cfg.Logger = f.db, t.TempDir(), quietLogger()
	if len(without) == 0 {
		cfg.Watches = f.source
	}
	srv, err := web.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.BeginShutdown()
		ts.Close()
		srv.Close()
	})
	return ts
}

// get fetches path from ts with header pairs.
func get(t *testing.T, ts *httptest.Server, path string, header ...string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

// doc parses an HTML answer.
func doc(t *testing.T, body []byte) *goquery.Document {
	t.Helper()
	d, err := goquery.NewDocumentFromReader(strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// testid selects by data-testid.
func testid(id string) string { return `[data-testid="` + id + `"]` }
