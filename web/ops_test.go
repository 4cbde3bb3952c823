package web

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
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
	checkOpsJSON(t, ts, pg)
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
	// Its JSON twin likewise.
	for _, h := range [][]string{nil, {"Authorization", "Bearer wrong-0123456789"}} {
		if code, _, body := tok.get(t, OpsJSONURL, h...); code != http.StatusUnauthorized {
			t.Errorf("/ops.json with %q: %d %s, want 401", h, code, body)
		}
	}
	code, _, body := tok.get(t, OpsJSONURL, "Authorization", "Bearer ops-secret-0123456789")
	var o struct {
		Watching bool `json:"watching"`
		Watches  []any
	}
	if code != http.StatusOK || json.Unmarshal(body, &o) != nil || o.Watching || o.Watches == nil || len(o.Watches) != 0 {
		t.Errorf("/ops.json with the token: %d %s, want no watches", code, body)
	}
}

// checkOpsJSON reads /ops.json (and /ops asked for JSON) and holds its
// numbers to the page's pg: every queue's counts, the failed jobs with their
// errors and links, the watches with their verdicts and errors, the memory
// budget's bytes and the throttles.
func checkOpsJSON(t *testing.T, ts *testServer, pg *goquery.Document) {
	t.Helper()
	var o struct {
		Budget struct {
			UsedBytes  int64   `json:"used_bytes"`
			LimitBytes int64   `json:"limit_bytes"`
			Percent    float64 `json:"percent"`
		}
		JobSystem bool `json:"job_system"`
		Queues    []struct {
			Name                                           string
			Workers, Available, Running, Retryable, Failed int
		}
		Failed []struct {
			ID          int64
			Kind, Error string
			Link        string
			Attempts    int
		}
		Watching bool
		Watches  []struct {
			Name, URL, Action, Verdict string
			LastError                  string `json:"last_error"`
		}
		Throttles []struct {
			Name                 string
			Busy, Limit, Waiting int
		}
	}
	code, hdr, body := opsGet(t, ts, OpsJSONURL)
	if code != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") || hdr.Get("Cache-Control") != "no-store" {
		t.Fatalf("/ops.json: %d %v %s", code, hdr, body)
	}
	if err := json.Unmarshal(body, &o); err != nil {
		t.Fatal(err)
	}
	if code, ctype, body2 := ts.get(t, OpsURL, "Accept", "application/json"); code != http.StatusOK || !strings.HasPrefix(ctype, "application/json") ||
		!bytes.Contains(body2, []byte(`"job_system": true`)) {
		t.Errorf("/ops asked for JSON: %d %s", code, body2)
	}
	if !o.JobSystem || len(o.Queues) != pg.Find(tid("ops-queue")).Length() || len(o.Queues) == 0 {
		t.Errorf("/ops.json lists %d queues, the page %d", len(o.Queues), pg.Find(tid("ops-queue")).Length())
	}
	for _, q := range o.Queues {
		row := pg.Find(tid("ops-queue") + `[data-queue="` + q.Name + `"]`)
		got := []string{strconv.Itoa(q.Available), strconv.Itoa(q.Running), strconv.Itoa(q.Retryable), strconv.Itoa(q.Failed)}
		want := []string{row.Find(tid("ops-available")).Text(), row.Find(tid("ops-running")).Text(), row.Find(tid("ops-retryable")).Text(), row.Find(tid("ops-failed")).Text()}
		if strings.Join(got, " ") != strings.Join(want, " ") || !strings.Contains(row.Text(), strconv.Itoa(q.Workers)+" at once here") {
			t.Errorf("queue %s in /ops.json: %v (%d workers), the page %v", q.Name, got, q.Workers, want)
		}
	}
	rows := pg.Find(tid("ops-failed-job"))
	if len(o.Failed) != rows.Length() || len(o.Failed) == 0 {
		t.Fatalf("/ops.json lists %d failed jobs, the page %d", len(o.Failed), rows.Length())
	}
	for i, j := range o.Failed {
		row := rows.Eq(i)
		href := row.Find(`a[href^="/r/"]`).AttrOr("href", "")
		if row.AttrOr("data-kind", "") != j.Kind || row.Find(tid("ops-job-error")).Text() != j.Error || j.Error == "" ||
			href == "" || !strings.HasSuffix(j.Link, href) || !strings.HasPrefix(j.Link, "http") || !strings.Contains(row.Text(), strconv.FormatInt(j.ID, 10)) {
			t.Errorf("failed job %d in /ops.json: %+v; the page's row %q links %q", i, j, strings.Join(strings.Fields(row.Text()), " "), href)
		}
	}
	if !o.Watching || len(o.Watches) != 1 {
		t.Fatalf("/ops.json watches: %+v", o.Watches)
	}
	wrow := pg.Find(tid("ops-watch") + `[data-name="` + o.Watches[0].Name + `"]`)
	if w := o.Watches[0]; wrow.Find(tid("ops-watch-error")).Text() != w.LastError || w.LastError == "" || w.Action != "scrape" ||
		wrow.Find(tid("ops-watch-verdict")).Text() != map[string]string{"": "no verdict yet", "leak": "leak suspected"}[w.Verdict] ||
		!strings.HasSuffix(w.URL, wrow.Find("a").AttrOr("href", "-")) {
		t.Errorf("the watch in /ops.json %+v, on the page %q", w, strings.Join(strings.Fields(wrow.Text()), " "))
	}
	if got := pg.Find(tid("ops-budget-limit")).AttrOr("data-bytes", ""); got != strconv.FormatInt(o.Budget.LimitBytes, 10) || o.Budget.LimitBytes != ts.srv.budget.Limit() {
		t.Errorf("/ops.json's budget limit %d, the page's %s", o.Budget.LimitBytes, got)
	}
	if got := pg.Find(tid("ops-budget-used")).AttrOr("data-bytes", ""); got != strconv.FormatInt(o.Budget.UsedBytes, 10) {
		t.Errorf("/ops.json's budget used %d, the page's %s", o.Budget.UsedBytes, got)
	}
	trs := pg.Find(tid("ops-throttle"))
	if len(o.Throttles) != trs.Length() || len(o.Throttles) == 0 {
		t.Fatalf("/ops.json lists %d throttles, the page %d", len(o.Throttles), trs.Length())
	}
	// Each request holds a slot of its own class (the page a page view's,
	// the JSON an API read's): the slots busy add up the same.
	busy, pageBusy := 0, 0
	for i, th := range o.Throttles {
		var cells []string
		trs.Eq(i).Find("td").Each(func(_ int, c *goquery.Selection) { cells = append(cells, c.Text()) })
		if len(cells) != 4 || cells[0] != th.Name || cells[2] != strconv.Itoa(th.Limit) || cells[3] != strconv.Itoa(th.Waiting) {
			t.Errorf("throttle %d in /ops.json %+v, the page %q", i, th, cells)
			continue
		}
		n, _ := strconv.Atoi(cells[1])
		busy, pageBusy = busy+th.Busy, pageBusy+n
	}
	if busy != pageBusy || busy != 1 {
		t.Errorf("/ops.json's throttles hold %d slots, the page's %d; want 1, the request's own", busy, pageBusy)
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
	if code, hdr, body := opsGet(t, ts, OpsJSONURL); code != http.StatusServiceUnavailable || hdr.Get("Retry-After") == "" {
		t.Errorf("/ops.json with the budget held: %d %s, want 503 with Retry-After", code, body)
	}
}

// opsGet fetches path on ts with its headers.
func opsGet(t *testing.T, ts *testServer, path string) (int, http.Header, []byte) {
	t.Helper()
	resp, err := http.Get(ts.URL + path)
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
