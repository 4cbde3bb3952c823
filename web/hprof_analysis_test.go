package web

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/pgtest"
	"github.com/leakui/leakui/jobs"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/store/postgres"
	"github.com/leakui/leakui/store/sqlite"
	"github.com/leakui/leakui/web/background"
	"github.com/leakui/leakui/web/heapdumps"
	"github.com/leakui/leakui/web/page"
)

// analysisDoc is the part of a report's JSON that tells its analysis's state.
type analysisDoc struct {
	Status   string        `json:"status"`
	Progress *heapJobState `json:"progress"`
}

// reportAnalysis reads a report's state from its JSON twin.
func (ts *testServer) reportAnalysis(t *testing.T, id string) analysisDoc {
	t.Helper()
	code, _, body := ts.get(t, "/api/reports/"+id)
	if code != http.StatusOK {
		t.Fatalf("report JSON: %d %s", code, body)
	}
	var d analysisDoc
	if err := json.Unmarshal(body, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// waitAnalysis follows a report's server-sent events until its analysis ends,
// and returns the last state they gave. The deadline only keeps a broken
// analysis from hanging the test.
func (ts *testServer) waitAnalysis(t *testing.T, id string) heapJobState {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+page.ReportEventsURL(id), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var last heapJobState
	sc := bufio.NewScanner(resp.Body)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: ") && event == "progress":
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &last); err != nil {
				t.Fatal(err)
			}
		case strings.HasPrefix(line, "data: ") && event == "end":
			return last
		}
	}
	t.Fatalf("the events ended without an end event (%v); last state %+v", sc.Err(), last)
	return last
}

// mustUploadHeapDump uploads one heap dump, checks that the answer is 202 with
// the report analyzing, and waits for the analysis to succeed.
func (ts *testServer) mustUploadHeapDump(t *testing.T, f file) uploadResponse {
	t.Helper()
	code, up, raw := ts.upload(t, f)
	if code != http.StatusAccepted || up.Status != store.ReportAnalyzing || up.ReportID == "" {
		t.Fatalf("heap dump upload: %d %s", code, raw)
	}
	if st := ts.waitAnalysis(t, up.ReportID); st.Status != "done" {
		t.Fatalf("the analysis ended %+v", st)
	}
	return up
}

// holdAnalyses keeps the process's one heap dump analysis slot until the test
// calls release (or ends), so that uploads stay queued.
func holdAnalyses(t *testing.T) (release func()) {
	heapDumpAnalyses <- struct{}{}
	released := false
	release = func() {
		if !released {
			released = true
			<-heapDumpAnalyses
		}
	}
	t.Cleanup(release)
	return release
}

// TestHeapDumpAnalysisInBackground checks that a heap dump upload answers
// before its analysis ends: 202 with the report's URL, the report analyzing
// (page with a progress bar, JSON and Markdown saying so), a second upload
// queued behind it with its position, and both done once the analyses run.
func TestHeapDumpAnalysisInBackground(t *testing.T) {
	ts := newTestServer(t, Config{})
	dump := leakShapeDump(t, false, 3, 64<<10)
	release := holdAnalyses(t)
	code, up, raw := ts.upload(t, dump)
	if code != http.StatusAccepted || up.Status != "analyzing" || !strings.HasPrefix(up.ReportURL, "/r/") {
		t.Fatalf("upload: %d %s", code, raw)
	}
	second := dump
	second.name = "second.hprof"
	second.data = append(append([]byte{}, dump.data...), dump.data[len(dump.data)-9:]...) // another sha256, a trailing record
	code, up2, raw := ts.upload(t, second)
	if code != http.StatusAccepted {
		t.Fatalf("second upload: %d %s", code, raw)
	}
	if d := ts.reportAnalysis(t, up.ReportID); d.Status != "analyzing" || d.Progress == nil || d.Progress.Queue != 0 {
		t.Errorf("first report's JSON while analyzing: %+v", d)
	}
	if d := ts.reportAnalysis(t, up2.ReportID); d.Status != "analyzing" || d.Progress.Queue != 1 {
		t.Errorf("second report's JSON while queued: %+v %+v", d, d.Progress)
	}
	doc, _ := jvmGetPage(t, ts, up2.ReportURL)
	if doc.Find(`[data-testid=analysis][data-status=analyzing] progress[data-testid=analysis-progress]`).Length() != 1 ||
		!strings.Contains(doc.Find(`[data-testid=analysis-queue]`).Text(), "1 analysis runs before this one") {
		t.Errorf("queued page: %q", doc.Find(`[data-testid=analysis]`).Text())
	}
	if doc.Find(`[data-testid=analysis-refresh]`).AttrOr("href", "") != up2.ReportURL {
		t.Error("no refresh link for browsers without JavaScript")
	}
	if code, _, md := ts.get(t, up.ReportURL+".md"); code != http.StatusOK || !strings.Contains(string(md), "The analysis is running") {
		t.Errorf("Markdown while analyzing: %d %s", code, md)
	}
	if _, _, pg := ts.get(t, "/"); strings.Count(string(pg), "— analyzing…") != 2 {
		t.Errorf("the dashboard does not list the two reports as analyzing")
	}
	release()
	for _, id := range []string{up.ReportID, up2.ReportID} {
		if st := ts.waitAnalysis(t, id); st.Status != "done" {
			t.Errorf("report %s ended %+v", id, st)
		}
		if d := ts.reportAnalysis(t, id); d.Status != "" || d.Progress != nil {
			t.Errorf("a done report's JSON still says %+v", d)
		}
	}
	doc, _ = jvmGetPage(t, ts, up.ReportURL)
	if got := doc.Find(`[data-testid="suspect"][data-rank="1"] [data-testid="suspect-sentence"]`).Text(); !strings.HasPrefix(got, "3 instances of LeakShape$Consumer") {
		t.Errorf("the report once done: first suspect %q", got)
	}
}

// TestHeapDumpAnalysisResumesAfterRestart stops a server while its analysis
// waits, then starts another on the same store: it takes the report up again
// and completes it.
func TestHeapDumpAnalysisResumesAfterRestart(t *testing.T) {
	db, err := sqlite.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	start := func() (*Server, *testServer) {
		srv, err := NewServer(Config{Store: db, TempDir: t.TempDir(), Jobs: testJobs(t, db)})
		if err != nil {
			t.Fatal(err)
		}
		return srv, &testServer{Server: httptest.NewServer(srv), db: db, srv: srv}
	}
	stop := func(srv *Server, ts *testServer) {
		srv.BeginShutdown()
		ts.Close()
		srv.Close()
	}
	dump := leakShapeDump(t, false, 2, 32<<10)
	release := holdAnalyses(t)
	srv, ts := start()
	code, up, raw := ts.upload(t, dump)
	if code != http.StatusAccepted {
		t.Fatalf("upload: %d %s", code, raw)
	}
	stop(srv, ts) // the analysis waited for the slot: it goes back to the queue
	if rep, err := db.Report(t.Context(), up.ReportID); err != nil || rep.Status != store.ReportAnalyzing {
		t.Fatalf("after the stop the report is %q (%v), want analyzing", rep.Status, err)
	}
	release()
	srv, ts = start()
	defer stop(srv, ts)
	if st := ts.waitAnalysis(t, up.ReportID); st.Status != "done" {
		t.Fatalf("after the restart the analysis ended %+v", st)
	}
	rep, err := db.Report(t.Context(), up.ReportID)
	if err != nil || rep.Status != store.ReportReady || !strings.Contains(string(rep.Summary), `"suspects"`) {
		t.Errorf("the resumed report: %q %v", rep.Status, err)
	}
}

// TestHeapDumpFramingRefusedAtOnce uploads dumps whose framing is broken: each
// is answered 422 at once with a one-line reason, and nothing is stored (no
// report, not the dump).
func TestHeapDumpFramingRefusedAtOnce(t *testing.T) {
	ts := newTestServer(t, Config{})
	dump := leakShapeDump(t, false, 2, 4096)
	nul := bytes.IndexByte(dump.data, 0)
	first := nul + 1 + 12 // the first record
	long := bytes.Clone(dump.data)
	binary.BigEndian.PutUint32(long[first+5:], 1<<31)
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"truncated", dump.data[:len(dump.data)/2]},
		{"cut between two records", dump.data[:first]},
		{"identifier size 3", append(append([]byte{}, dump.data[:nul+1]...), append([]byte{0, 0, 0, 3}, dump.data[nul+5:200]...)...)},
		{"a record length past the end", long},
	} {
		code, _, raw := ts.upload(t, file{name: c.name + ".hprof", data: c.data})
		var body struct {
			Error string `json:"error"`
		}
		json.Unmarshal([]byte(raw), &body)
		if code != http.StatusUnprocessableEntity || body.Error == "" || strings.Contains(body.Error, "\n") {
			t.Errorf("%s: %d %s, want 422 with a one-line reason", c.name, code, raw)
		}
		sum := sha256.Sum256(c.data)
		if _, err := ts.db.Artifact(t.Context(), hex.EncodeToString(sum[:])); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s: the refused dump is stored (%v)", c.name, err)
		}
	}
	if reps, err := ts.db.RecentReports(t.Context(), 10); err != nil || len(reps) != 0 {
		t.Errorf("refused dumps left %d reports (%v)", len(reps), err)
	}
}

// TestHeapDumpAnalysisFails uploads a dump framed right whose heap is broken
// inside (an unknown sub-record tag in its first heap dump segment), which only
// the analysis finds: the upload is accepted, its report fails with the
// 4xx-class reason (page, JSON, Markdown), and no index is stored.
func TestHeapDumpAnalysisFails(t *testing.T) {
	ts := newTestServer(t, Config{})
	dump := leakShapeDump(t, false, 2, 4096)
	broken := bytes.Clone(dump.data)
	pos := bytes.IndexByte(broken, 0) + 1 + 12
	for broken[pos] != 0x1C && broken[pos] != 0x0C {
		pos += 9 + int(binary.BigEndian.Uint32(broken[pos+5:]))
	}
	broken[pos+9] = 0x77 // no such sub-record
	for _, c := range []struct {
		name string
		data []byte
		want int
	}{
		{"unknown sub-record", broken, http.StatusUnprocessableEntity},
	} {
		code, up, raw := ts.upload(t, file{name: c.name + ".hprof", data: c.data})
		if code != http.StatusAccepted {
			t.Errorf("%s: %d %s", c.name, code, raw)
			continue
		}
		st := ts.waitAnalysis(t, up.ReportID)
		if st.Status != "failed" || st.Code != c.want || st.Error == "" || strings.Contains(st.Error, "\n") {
			t.Errorf("%s: ended %+v, want failed with %d", c.name, st, c.want)
		}
		d := ts.reportAnalysis(t, up.ReportID)
		if d.Status != "failed" || d.Progress == nil || d.Progress.Error != st.Error {
			t.Errorf("%s: JSON %+v", c.name, d)
		}
		doc, _ := jvmGetPage(t, ts, up.ReportURL)
		if got := doc.Find(`[data-testid=analysis][data-status=failed] [data-testid=analysis-error]`).Text(); !strings.Contains(got, st.Error) {
			t.Errorf("%s: the page says %q", c.name, got)
		}
		if _, _, pg := ts.get(t, "/"); !strings.Contains(string(pg), "the analysis failed: "+st.Error) {
			t.Errorf("%s: the dashboard does not list the report as failed", c.name)
		}
		if _, _, md := ts.get(t, up.ReportURL+".md"); !strings.Contains(string(md), "The analysis failed (422)") {
			t.Errorf("%s: Markdown %s", c.name, md)
		}
		if _, err := ts.db.OpenDerived(t.Context(), up.ReportID, heapDumpIndexName); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s: an index is stored for a failed analysis (%v)", c.name, err)
		}
	}
}

// TestHeapDumpAnalysisOverBudget analyzes a dump on a server whose memory
// budget cannot hold it: the report fails with the budget's 413 and its reason.
func TestHeapDumpAnalysisOverBudget(t *testing.T) {
	ts := newTestServer(t, Config{MemoryBudget: 256 << 10})
	code, up, raw := ts.upload(t, leakShapeDump(t, false, 2, 4096))
	if code != http.StatusAccepted {
		t.Fatalf("upload: %d %s", code, raw)
	}
	st := ts.waitAnalysis(t, up.ReportID)
	if st.Status != "failed" || st.Code != http.StatusRequestEntityTooLarge || st.Error == "" {
		t.Errorf("over the budget the analysis ended %+v", st)
	}
	if _, err := ts.db.OpenDerived(t.Context(), up.ReportID, heapDumpIndexName); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an index is stored for a failed analysis (%v)", err)
	}
}

// TestHeapDumpAnalysisStoppedMidway closes a server while its analysis computes
// the dominator tree: the analysis unwinds, leaves the report analyzing and no
// file in the spool directory, and the next server on the same store completes
// it.
func TestHeapDumpAnalysisStoppedMidway(t *testing.T) {
	db, err := sqlite.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	spool := t.TempDir()
	srv, err := NewServer(Config{Store: db, TempDir: spool, Jobs: testJobs(t, db)})
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{Server: httptest.NewServer(srv), db: db, srv: srv}
	reached := make(chan struct{})
	var once sync.Once
	heapdumps.StageHook = func(ctx context.Context, _, stage string) {
		if stage == "dominators" {
			// Hold the analysis until Close cancels it.
			once.Do(func() { close(reached); <-ctx.Done() })
		}
	}
	defer func() { heapdumps.StageHook = nil }()
	code, up, raw := ts.upload(t, leakShapeDump(t, false, 2, 32<<10))
	if code != http.StatusAccepted {
		t.Fatalf("upload: %d %s", code, raw)
	}
	<-reached
	closed := make(chan struct{})
	go func() {
		srv.BeginShutdown()
		ts.Close()
		srv.Close()
		close(closed)
	}()
	<-closed
	if rep, err := db.Report(t.Context(), up.ReportID); err != nil || rep.Status != store.ReportAnalyzing {
		t.Fatalf("after a stop midway the report is %q (%v), want analyzing", rep.Status, err)
	}
	if left, _ := os.ReadDir(spool); len(left) != 0 {
		t.Errorf("the stopped analysis left %d files in the spool directory: %v", len(left), left)
	}
	srv2, err := NewServer(Config{Store: db, TempDir: t.TempDir(), Jobs: testJobs(t, db)})
	if err != nil {
		t.Fatal(err)
	}
	ts2 := &testServer{Server: httptest.NewServer(srv2), db: db, srv: srv2}
	defer func() { srv2.BeginShutdown(); ts2.Close(); srv2.Close() }()
	if st := ts2.waitAnalysis(t, up.ReportID); st.Status != "done" {
		t.Fatalf("after the restart the analysis ended %+v", st)
	}
	if _, err := db.OpenDerived(t.Context(), up.ReportID, heapDumpIndexName); err != nil {
		t.Errorf("the resumed analysis stored no index: %v", err)
	}
}

// shortRetries makes the background analyses try again after backoff, at
// most attempts times, for the test.
func shortRetries(t *testing.T, attempts int, backoff time.Duration) {
	r := heapdumps.Retries
	heapdumps.Retries = background.Retries{Attempts: attempts, First: backoff, Max: backoff}
	t.Cleanup(func() { heapdumps.Retries = r })
}

// TestHeapDumpAnalysisRetriesWhenBusy holds the server's whole memory budget
// (as other analyses would) while a heap dump waits: its attempts fail with
// ErrBusy, which is the server's state and not the dump's fault, so the report
// stays analyzing, says why it waits, and completes once the budget is given
// back.
func TestHeapDumpAnalysisRetriesWhenBusy(t *testing.T) {
	shortRetries(t, 1000, 20*time.Millisecond)
	ts := newTestServer(t, Config{})
	held := ts.srv.budget.Limit()
	if err := ts.srv.budget.Charge(held); err != nil {
		t.Fatal(err)
	}
	released := false
	release := func() {
		if !released {
			released = true
			ts.srv.budget.Uncharge(held)
		}
	}
	defer release()
	code, up, raw := ts.upload(t, leakShapeDump(t, false, 2, 4096))
	if code != http.StatusAccepted {
		t.Fatalf("upload: %d %s", code, raw)
	}
	var d analysisDoc
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if d = ts.reportAnalysis(t, up.ReportID); d.Status != "analyzing" || (d.Progress != nil && d.Progress.Retry != "") {
			break
		}
	}
	if d.Status != "analyzing" || d.Progress == nil || !strings.HasPrefix(d.Progress.Retry, "503 ") || d.Progress.Stage != "Waiting to try again" {
		t.Fatalf("with the budget held the report is %+v %+v, want analyzing and waiting to try again", d, d.Progress)
	}
	release()
	if st := ts.waitAnalysis(t, up.ReportID); st.Status != "done" {
		t.Fatalf("once the budget is free the analysis ended %+v", st)
	}
	if _, err := ts.db.OpenDerived(t.Context(), up.ReportID, heapDumpIndexName); err != nil {
		t.Errorf("the retried analysis stored no index: %v", err)
	}
}

// TestHeapDumpAnalysisGivesUp holds the budget for good: after its attempts the
// report fails with the 503 and its reason.
func TestHeapDumpAnalysisGivesUp(t *testing.T) {
	shortRetries(t, 3, time.Millisecond)
	ts := newTestServer(t, Config{})
	held := ts.srv.budget.Limit()
	if err := ts.srv.budget.Charge(held); err != nil {
		t.Fatal(err)
	}
	defer ts.srv.budget.Uncharge(held)
	code, up, raw := ts.upload(t, leakShapeDump(t, false, 2, 4096))
	if code != http.StatusAccepted {
		t.Fatalf("upload: %d %s", code, raw)
	}
	st := ts.waitAnalysis(t, up.ReportID)
	if st.Status != "failed" || st.Code != http.StatusServiceUnavailable || !strings.Contains(st.Error, "memory budget") {
		t.Errorf("with the budget held for good the analysis ended %+v", st)
	}
}

// TestHeapDumpAnalysisFinishesOnAnotherReplica runs two servers (replicas)
// on one PostgreSQL database, each with its own store connections and job
// runner. The first takes up an upload's analysis; while it computes the
// dominator tree, the second's page shows the analysis running elsewhere
// with its stage; then the first is stopped midway (its analysis's context
// cancelled), and the second finishes the dump: the report is done, with its
// index, the job's last attempt ran on the second, and the dump was parsed
// twice, once by each.
func TestHeapDumpAnalysisFinishesOnAnotherReplica(t *testing.T) {
	dsn := pgtest.DSN(t)
	start := func(name string) (*testServer, func()) {
		db, err := postgres.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		srv, err := NewServer(Config{Store: db, TempDir: t.TempDir(), Jobs: testJobsAt(t, dsn, name)})
		if err != nil {
			t.Fatal(err)
		}
		ts := &testServer{Server: httptest.NewServer(srv), db: db, srv: srv}
		var once sync.Once
		stop := func() { once.Do(func() { srv.BeginShutdown(); ts.Close(); srv.Close() }) }
		t.Cleanup(stop)
		return ts, stop
	}
	var mu sync.Mutex
	parses := 0
	reached := make(chan struct{})
	var first sync.Once
	heapdumps.StageHook = func(ctx context.Context, _, stage string) {
		switch stage {
		case "index":
			mu.Lock()
			parses++
			mu.Unlock()
		case "dominators":
			// The first attempt holds until its server stops it.
			first.Do(func() { close(reached); <-ctx.Done() })
		}
	}
	t.Cleanup(func() { heapdumps.StageHook = nil }) // after the servers' cleanups
	tsA, stopA := start("replica-a")
	code, up, raw := tsA.upload(t, leakShapeDump(t, false, 2, 32<<10))
	if code != http.StatusAccepted {
		t.Fatalf("upload: %d %s", code, raw)
	}
	<-reached
	tsB, _ := start("replica-b")
	// The second replica shows the first's analysis, its progress read from
	// the job's row (stored at most once a second).
	var d analysisDoc
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if d = tsB.reportAnalysis(t, up.ReportID); d.Progress != nil && d.Progress.Stage == "Computing the dominator tree" {
			break
		}
	}
	if d.Status != "analyzing" || d.Progress == nil || !d.Progress.Elsewhere || d.Progress.Stage != "Computing the dominator tree" || d.Progress.Queue != 0 {
		t.Errorf("the second replica's JSON while the first analyzes: %+v %+v", d, d.Progress)
	}
	stopA()
	if rep, err := tsB.db.Report(t.Context(), up.ReportID); err != nil || rep.Status != store.ReportAnalyzing {
		t.Fatalf("once the first replica stopped the report is %q (%v), want analyzing", rep.Status, err)
	}
	if st := tsB.waitAnalysis(t, up.ReportID); st.Status != "done" {
		t.Fatalf("on the second replica the analysis ended %+v", st)
	}
	if _, err := tsB.db.OpenDerived(t.Context(), up.ReportID, heapDumpIndexName); err != nil {
		t.Errorf("the finished analysis stored no index: %v", err)
	}
	// The job's completion is written after the report's outcome.
	var info jobs.JobInfo
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if info, err = tsB.srv.cfg.Jobs.Find(t.Context(), "heap_dump_analysis", "report", up.ReportID); err != nil || info.State == jobs.Done {
			break
		}
	}
	if err != nil || info.Process != "replica-b" || info.State != jobs.Done {
		t.Errorf("the analysis's job: %+v, %v; want done by replica-b", info, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if parses != 2 {
		t.Errorf("the dump was parsed %d times, want twice (once by each replica)", parses)
	}
}
