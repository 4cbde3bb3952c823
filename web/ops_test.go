package web

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/watch"
	"github.com/leakui/leakui/watch/watcher"
)

// opsWatches is what serve gives the web of a real watcher's watches.
type opsWatches struct {
	w  *watcher.Watcher
	db *store.DB
}

func (s opsWatches) Statuses(ctx context.Context) ([]watch.Status, error) { return s.w.Statuses(ctx) }
func (s opsWatches) WatchSnapshots(ctx context.Context, name string) ([]store.WatchSnapshot, error) {
	return s.db.WatchSnapshots(ctx, name)
}
func (s opsWatches) Deliveries(ctx context.Context, name string, limit int) ([]store.Delivery, error) {
	return s.db.Deliveries(ctx, name, limit)
}

// opsPage fetches /ops with header pairs and parses it.
func opsPage(t *testing.T, ts *testServer, header ...string) (int, *goquery.Document) {
	t.Helper()
	code, _, body := ts.get(t, OpsURL, header...)
	d, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return code, d
}

func tid(id string) string { return `[data-testid="` + id + `"]` }

// TestOpsPage: the operations page shows the heap dump queue's numbers as
// /readyz's JSON gives them, the analysis that failed for good with its
// error and a link to its report, a watch's last scrape with its error, and
// the memory budget's bytes as the server's budget holds them; the footer
// links it; on a server with a token it needs the token, private or not.
func TestOpsPage(t *testing.T) {
	ctx := context.Background()
	db0 := newTestServer(t, Config{}) // a store for the watcher, and a server without watches
	d, err := watch.Parse("payments=http://127.0.0.1:1,every=5s,keep=8")
	if err != nil {
		t.Fatal(err)
	}
	w := watcher.New(watcher.Config{Store: db0.db, Timeout: 2 * time.Second}, []watch.Declaration{d})
	t.Cleanup(w.CloseIdleConnections)
	if err := w.Declare(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.Tick(ctx, "payments", time.Now()); err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, Config{Watches: opsWatches{w, db0.db}})

	// A dump framed right whose heap is broken inside: its analysis fails
	// for good.
	dump := leakShapeDump(t, false, 2, 4096)
	broken := bytes.Clone(dump.data)
	pos := bytes.IndexByte(broken, 0) + 1 + 12
	for broken[pos] != 0x1C && broken[pos] != 0x0C {
		pos += 9 + int(binary.BigEndian.Uint32(broken[pos+5:]))
	}
	broken[pos+9] = 0x77
	code, up, raw := ts.upload(t, file{"broken.hprof", broken})
	if code != http.StatusAccepted {
		t.Fatalf("upload: %d %s", code, raw)
	}
	st := ts.waitAnalysis(t, up.ReportID)
	if st.Status != "failed" || st.Error == "" {
		t.Fatalf("the analysis ended %+v, want failed", st)
	}

	// The report fails as the work returns; the job's row ends just after.
	var ready struct {
		Jobs []struct {
			Name                                  string
			Available, Running, Retryable, Failed int
		} `json:"jobs"`
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, _, js := ts.get(t, "/readyz", "Accept", "application/json")
		if err := json.Unmarshal(js, &ready); err != nil || len(ready.Jobs) == 0 {
			t.Fatalf("/readyz: %s (%v)", js, err)
		}
		if ended := strings.Contains(string(js), `"failed":1`); ended || time.Now().After(deadline) {
			break
		}
	}
	code, pg := opsPage(t, ts)
	if code != http.StatusOK {
		t.Fatalf("/ops: %d", code)
	}
	for _, q := range ready.Jobs {
		row := pg.Find(tid("ops-queue") + `[data-queue="` + q.Name + `"]`)
		got := []string{row.Find(tid("ops-available")).Text(), row.Find(tid("ops-running")).Text(), row.Find(tid("ops-retryable")).Text(), row.Find(tid("ops-failed")).Text()}
		want := []string{strconv.Itoa(q.Available), strconv.Itoa(q.Running), strconv.Itoa(q.Retryable), strconv.Itoa(q.Failed)}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("queue %s on /ops: %v, /readyz %v", q.Name, got, want)
		}
		if q.Name == "heap_dumps" && q.Failed != 1 {
			t.Errorf("/readyz counts %d failed heap dump analyses, want 1", q.Failed)
		}
	}
	failed := pg.Find(tid("ops-failed-job") + `[data-kind="heap_dump_analysis"]`)
	if failed.Length() != 1 {
		t.Fatalf("%d failed analyses listed, want 1", failed.Length())
	}
	if got := failed.Find(tid("ops-job-error")).Text(); !strings.Contains(got, st.Error) {
		t.Errorf("the failed job's error reads %q, want the report's %q", got, st.Error)
	}
	if href := failed.Find(`a[href^="/r/"]`).AttrOr("href", ""); href != up.ReportURL {
		t.Errorf("the failed job links %q, want its report %s", href, up.ReportURL)
	}
	sts, err := w.Statuses(ctx)
	if err != nil || len(sts) != 1 || sts[0].LastError == "" {
		t.Fatalf("the dead target's watch: %+v %v", sts, err)
	}
	wrow := pg.Find(tid("ops-watch") + `[data-name="payments"]`)
	if got := wrow.Find(tid("ops-watch-error")).Text(); got != sts[0].LastError {
		t.Errorf("the watch's error reads %q, want %q", got, sts[0].LastError)
	}
	if got := wrow.Find(tid("ops-watch-last")).Text(); !strings.Contains(got, "last scrape ") {
		t.Errorf("the watch's last scrape reads %q", got)
	}
	if got := pg.Find(tid("ops-budget-limit")).AttrOr("data-bytes", ""); got != strconv.FormatInt(ts.srv.budget.Limit(), 10) {
		t.Errorf("budget limit %s, want %d", got, ts.srv.budget.Limit())
	}
	if got := pg.Find(tid("ops-budget-used")).AttrOr("data-bytes", ""); got != strconv.FormatInt(ts.srv.budget.Used(), 10) {
		t.Errorf("budget used %s, the budget holds %d", got, ts.srv.budget.Used())
	}
	_, _, home := ts.get(t, "/")
	if !strings.Contains(string(home), `href="/ops" data-testid="footer-ops"`) {
		t.Error("the dashboard's footer does not link /ops")
	}

	// A server with a token shows it to those who carry it only.
	tok := newTestServer(t, Config{Token: "ops-secret-0123456789"})
	if code, _ := opsPage(t, tok); code != http.StatusUnauthorized {
		t.Errorf("/ops without the token: %d, want 401", code)
	}
	if code, pg := opsPage(t, tok, "Authorization", "Bearer ops-secret-0123456789"); code != http.StatusOK || pg.Find(tid("ops-no-watches")).Length() != 1 {
		t.Errorf("/ops with the token: %d", code)
	}
}

// TestOpsPageWithinBudget: with the memory budget held by other analyses
// the page answers 503 rather than build itself beyond it.
func TestOpsPageWithinBudget(t *testing.T) {
	ts := newTestServer(t, Config{MemoryBudget: 8 << 20})
	others := ts.srv.budget.Child(0)
	if err := others.Charge(ts.srv.budget.Remaining() - 1024); err != nil {
		t.Fatal(err)
	}
	defer others.Release()
	if code, _ := opsPage(t, ts); code != http.StatusServiceUnavailable {
		t.Errorf("/ops with the budget held: %d, want 503", code)
	}
}
