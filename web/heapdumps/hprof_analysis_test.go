package heapdumps_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
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
	"github.com/leakui/leakui/web"
	"github.com/leakui/leakui/web/heapdumps"
	"github.com/leakui/leakui/web/internal/webtest"
)

// TestHeapDumpAnalysisInBackground checks that a heap dump upload answers
// before its analysis ends: 202 with the report's URL, the report analyzing
// (page with a progress bar, JSON and Markdown saying so), a second upload
// queued behind it with its position, and both done once the analyses run.
func TestHeapDumpAnalysisInBackground(t *testing.T) {
	ts := newTestServer(t, web.Config{})
	dump := webtest.LeakShapeDump(t, false, 3, 64<<10)
	release := webtest.Hold(t, heapdumps.Analyses)
	code, up, raw := ts.Upload(t, dump)
	if code != http.StatusAccepted || up.Status != "analyzing" || !strings.HasPrefix(up.ReportURL, "/r/") {
		t.Fatalf("upload: %d %s", code, raw)
	}
	second := dump
	second.Name = "second.hprof"
	second.Data = append(append([]byte{}, dump.Data...), dump.Data[len(dump.Data)-9:]...) // another sha256, a trailing record
	code, up2, raw := ts.Upload(t, second)
	if code != http.StatusAccepted {
		t.Fatalf("second upload: %d %s", code, raw)
	}
	if d := reportAnalysis(t, ts, up.ReportID); d.Status != "analyzing" || d.Progress == nil || d.Progress.Queue != 0 {
		t.Errorf("first report's JSON while analyzing: %+v", d)
	}
	if d := reportAnalysis(t, ts, up2.ReportID); d.Status != "analyzing" || d.Progress.Queue != 1 {
		t.Errorf("second report's JSON while queued: %+v %+v", d, d.Progress)
	}
	doc, _ := ts.Page(t, up2.ReportURL)
	if doc.Find(`[data-testid=analysis][data-status=analyzing] progress[data-testid=analysis-progress]`).Length() != 1 ||
		!strings.Contains(doc.Find(`[data-testid=analysis-queue]`).Text(), "1 analysis runs before this one") {
		t.Errorf("queued page: %q", doc.Find(`[data-testid=analysis]`).Text())
	}
	if doc.Find(`[data-testid=analysis-refresh]`).AttrOr("href", "") != up2.ReportURL {
		t.Error("no refresh link for browsers without JavaScript")
	}
	if code, _, md := ts.Get(t, up.ReportURL+".md"); code != http.StatusOK || !strings.Contains(string(md), "The analysis is running") {
		t.Errorf("Markdown while analyzing: %d %s", code, md)
	}
	if _, _, pg := ts.Get(t, "/"); strings.Count(string(pg), "— analyzing…") != 2 {
		t.Errorf("the dashboard does not list the two reports as analyzing")
	}
	release()
	for _, id := range []string{up.ReportID, up2.ReportID} {
		if st := waitAnalysis(t, ts, id); st.Status != "done" {
			t.Errorf("report %s ended %+v", id, st)
		}
		if d := reportAnalysis(t, ts, id); d.Status != "" || d.Progress != nil {
			t.Errorf("a done report's JSON still says %+v", d)
		}
	}
	doc, _ = ts.Page(t, up.ReportURL)
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
	start := func() (*webtest.Server, func()) {
		srv, err := web.NewServer(web.Config{Store: db, TempDir: t.TempDir(), Jobs: webtest.Jobs(t, db.Location, "")})
		if err != nil {
			t.Fatal(err)
		}
		return webtest.Serve(t, db, srv)
	}
	dump := webtest.LeakShapeDump(t, false, 2, 32<<10)
	release := webtest.Hold(t, heapdumps.Analyses)
	ts, stop := start()
	code, up, raw := ts.Upload(t, dump)
	if code != http.StatusAccepted {
		t.Fatalf("upload: %d %s", code, raw)
	}
	stop() // the analysis waited for the slot: it goes back to the queue
	if rep, err := db.Report(t.Context(), up.ReportID); err != nil || rep.Status != store.ReportAnalyzing {
		t.Fatalf("after the stop the report is %q (%v), want analyzing", rep.Status, err)
	}
	release()
	ts, stop = start()
	defer stop()
	if st := waitAnalysis(t, ts, up.ReportID); st.Status != "done" {
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
	ts := newTestServer(t, web.Config{})
	dump := webtest.LeakShapeDump(t, false, 2, 4096)
	nul := bytes.IndexByte(dump.Data, 0)
	first := nul + 1 + 12 // the first record
	long := bytes.Clone(dump.Data)
	binary.BigEndian.PutUint32(long[first+5:], 1<<31)
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"truncated", dump.Data[:len(dump.Data)/2]},
		{"cut between two records", dump.Data[:first]},
		{"identifier size 3", append(append([]byte{}, dump.Data[:nul+1]...), append([]byte{0, 0, 0, 3}, dump.Data[nul+5:200]...)...)},
		{"a record length past the end", long},
	} {
		code, _, raw := ts.Upload(t, webtest.File{Name: c.name + ".hprof", Data: c.data})
		var body struct {
			Error string `json:"error"`
		}
		json.Unmarshal([]byte(raw), &body)
		if code != http.StatusUnprocessableEntity || body.Error == "" || strings.Contains(body.Error, "\n") {
			t.Errorf("%s: %d %s, want 422 with a one-line reason", c.name, code, raw)
		}
		sum := sha256.Sum256(c.data)
		if _, err := ts.DB.Artifact(t.Context(), hex.EncodeToString(sum[:])); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s: the refused dump is stored (%v)", c.name, err)
		}
	}
	if reps, err := ts.DB.RecentReports(t.Context(), 10); err != nil || len(reps) != 0 {
		t.Errorf("refused dumps left %d reports (%v)", len(reps), err)
	}
}

// TestHeapDumpAnalysisFails uploads a dump framed right whose heap is broken
// inside (an unknown sub-record tag in its first heap dump segment), which only
// the analysis finds: the upload is accepted, its report fails with the
// 4xx-class reason (page, JSON, Markdown), and no index is stored.
func TestHeapDumpAnalysisFails(t *testing.T) {
	ts := newTestServer(t, web.Config{})
	dump := webtest.LeakShapeDump(t, false, 2, 4096)
	broken := bytes.Clone(dump.Data)
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
		code, up, raw := ts.Upload(t, webtest.File{Name: c.name + ".hprof", Data: c.data})
		if code != http.StatusAccepted {
			t.Errorf("%s: %d %s", c.name, code, raw)
			continue
		}
		st := waitAnalysis(t, ts, up.ReportID)
		if st.Status != "failed" || st.Code != c.want || st.Error == "" || strings.Contains(st.Error, "\n") {
			t.Errorf("%s: ended %+v, want failed with %d", c.name, st, c.want)
		}
		d := reportAnalysis(t, ts, up.ReportID)
		if d.Status != "failed" || d.Progress == nil || d.Progress.Error != st.Error {
			t.Errorf("%s: JSON %+v", c.name, d)
		}
		doc, _ := ts.Page(t, up.ReportURL)
		if got := doc.Find(`[data-testid=analysis][data-status=failed] [data-testid=analysis-error]`).Text(); !strings.Contains(got, st.Error) {
			t.Errorf("%s: the page says %q", c.name, got)
		}
		if _, _, pg := ts.Get(t, "/"); !strings.Contains(string(pg), "the analysis failed: "+st.Error) {
			t.Errorf("%s: the dashboard does not list the report as failed", c.name)
		}
		if _, _, md := ts.Get(t, up.ReportURL+".md"); !strings.Contains(string(md), "The analysis failed (422)") {
			t.Errorf("%s: Markdown %s", c.name, md)
		}
		if _, err := ts.DB.OpenDerived(t.Context(), up.ReportID, heapdumps.IndexName); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s: an index is stored for a failed analysis (%v)", c.name, err)
		}
	}
}

// TestHeapDumpAnalysisOverBudget analyzes a dump on a server whose memory
// budget cannot hold it: the report fails with the budget's 413 and its reason.
func TestHeapDumpAnalysisOverBudget(t *testing.T) {
	ts := newTestServer(t, web.Config{MemoryBudget: 256 << 10})
	code, up, raw := ts.Upload(t, webtest.LeakShapeDump(t, false, 2, 4096))
	if code != http.StatusAccepted {
		t.Fatalf("upload: %d %s", code, raw)
	}
	st := waitAnalysis(t, ts, up.ReportID)
	if st.Status != "failed" || st.Code != http.StatusRequestEntityTooLarge || st.Error == "" {
		t.Errorf("over the budget the analysis ended %+v", st)
	}
	if _, err := ts.DB.OpenDerived(t.Context(), up.ReportID, heapdumps.IndexName); !errors.Is(err, store.ErrNotFound) {
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
	srv, err := web.NewServer(web.Config{Store: db, TempDir: spool, Jobs: webtest.Jobs(t, db.Location, "")})
	if err != nil {
		t.Fatal(err)
	}
	ts, stop := webtest.Serve(t, db, srv)
	reached := make(chan struct{})
	var once sync.Once
	heapdumps.StageHook = func(ctx context.Context, _, stage string) {
		if stage == "dominators" {
			// Hold the analysis until Close cancels it.
			once.Do(func() { close(reached); <-ctx.Done() })
		}
	}
	defer func() { heapdumps.StageHook = nil }()
	code, up, raw := ts.Upload(t, webtest.LeakShapeDump(t, false, 2, 32<<10))
	if code != http.StatusAccepted {
		t.Fatalf("upload: %d %s", code, raw)
	}
	<-reached
	closed := make(chan struct{})
	go func() {
		stop()
		close(closed)
	}()
	<-closed
	if rep, err := db.Report(t.Context(), up.ReportID); err != nil || rep.Status != store.ReportAnalyzing {
		t.Fatalf("after a stop midway the report is %q (%v), want analyzing", rep.Status, err)
	}
	if left, _ := os.ReadDir(spool); len(left) != 0 {
		t.Errorf("the stopped analysis left %d files in the spool directory: %v", len(left), left)
	}
	srv2, err := web.NewServer(web.Config{Store: db, TempDir: t.TempDir(), Jobs: webtest.Jobs(t, db.Location, "")})
	if err != nil {
		t.Fatal(err)
	}
	ts2, stop2 := webtest.Serve(t, db, srv2)
	defer stop2()
	if st := waitAnalysis(t, ts2, up.ReportID); st.Status != "done" {
		t.Fatalf("after the restart the analysis ended %+v", st)
	}
	if _, err := db.OpenDerived(t.Context(), up.ReportID, heapdumps.IndexName); err != nil {
		t.Errorf("the resumed analysis stored no index: %v", err)
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
	start := func(name string) (*webtest.Server, func(), *jobs.Runner) {
		db, err := postgres.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		runner := webtest.Jobs(t, dsn, name)
		srv, err := web.NewServer(web.Config{Store: db, TempDir: t.TempDir(), Jobs: runner})
		if err != nil {
			t.Fatal(err)
		}
		ts, stop := webtest.Serve(t, db, srv)
		return ts, stop, runner
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
	tsA, stopA, _ := start("replica-a")
	code, up, raw := tsA.Upload(t, webtest.LeakShapeDump(t, false, 2, 32<<10))
	if code != http.StatusAccepted {
		t.Fatalf("upload: %d %s", code, raw)
	}
	<-reached
	tsB, _, jobsB := start("replica-b")
	// The second replica shows the first's analysis, its progress read from
	// the job's row (stored at most once a second).
	var d analysisDoc
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if d = reportAnalysis(t, tsB, up.ReportID); d.Progress != nil && d.Progress.Stage == "Computing the dominator tree" {
			break
		}
	}
	if d.Status != "analyzing" || d.Progress == nil || !d.Progress.Elsewhere || d.Progress.Stage != "Computing the dominator tree" || d.Progress.Queue != 0 {
		t.Errorf("the second replica's JSON while the first analyzes: %+v %+v", d, d.Progress)
	}
	stopA()
	if rep, err := tsB.DB.Report(t.Context(), up.ReportID); err != nil || rep.Status != store.ReportAnalyzing {
		t.Fatalf("once the first replica stopped the report is %q (%v), want analyzing", rep.Status, err)
	}
	if st := waitAnalysis(t, tsB, up.ReportID); st.Status != "done" {
		t.Fatalf("on the second replica the analysis ended %+v", st)
	}
	if _, err := tsB.DB.OpenDerived(t.Context(), up.ReportID, heapdumps.IndexName); err != nil {
		t.Errorf("the finished analysis stored no index: %v", err)
	}
	// The job's completion is written after the report's outcome.
	var info jobs.JobInfo
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if info, err = jobsB.Find(t.Context(), "heap_dump_analysis", "report", up.ReportID); err != nil || info.State == jobs.Done {
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
