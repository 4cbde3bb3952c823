package heapdumps_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/pgtest"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/store/postgres"
	"github.com/leakui/leakui/store/sqlite"
	"github.com/leakui/leakui/web"
	"github.com/leakui/leakui/web/heapdumps"
	"github.com/leakui/leakui/web/internal/webtest"
)

// compareStore opens a store of backend ("sqlite" or "postgres") for a
// test and returns it with where its job runner's tables live.
func compareStore(t *testing.T, backend string) (*store.DB, string) {
	t.Helper()
	if backend == "postgres" {
		dsn := pgtest.DSN(t)
		db, err := postgres.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db, dsn
	}
	db, err := sqlite.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, db.Location
}

// compareServer starts a server on db (its jobs at where) spooling into
// spool, and returns it with its stop, which the test's end also calls.
func compareServer(t *testing.T, db *store.DB, where, spool string) (*webtest.Server, func()) {
	t.Helper()
	srv, err := web.NewServer(web.Config{Store: db, TempDir: spool, Jobs: webtest.Jobs(t, where, "")})
	if err != nil {
		t.Fatal(err)
	}
	return webtest.Serve(t, db, srv)
}

// stageLog records the stages of the background analyses (StageHook), each
// once, in order; at, when set, is called with every stage.
type stageLog struct {
	mu     sync.Mutex
	stages []string
}

func (l *stageLog) hook(t *testing.T, at func(ctx context.Context, stage string)) {
	heapdumps.StageHook = func(ctx context.Context, _, stage string) {
		l.mu.Lock()
		if n := len(l.stages); n == 0 || l.stages[n-1] != stage {
			l.stages = append(l.stages, stage)
		}
		l.mu.Unlock()
		if at != nil {
			at(ctx, stage)
		}
	}
	t.Cleanup(func() { heapdumps.StageHook = nil })
}

func (l *stageLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.stages)
}

// firstAt is where the first stage beginning with prefix is in stages (-1:
// none).
func firstAt(stages []string, prefix string) int {
	return slices.IndexFunc(stages, func(s string) bool { return strings.HasPrefix(s, prefix) })
}

// storedIndexes tells which of a comparison's n dump indexes (and the single
// dump's index name) are stored with report id.
func storedIndexes(t *testing.T, db *store.DB, id string, n int) []string {
	t.Helper()
	var out []string
	for _, name := range append([]string{heapdumps.IndexName}, dumpIndexNames(n)...) {
		b, err := db.OpenDerived(t.Context(), id, name)
		if err == nil {
			b.Close()
			out = append(out, name)
		} else if !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
	}
	return out
}

func dumpIndexNames(n int) []string {
	var names []string
	for i := range n {
		names = append(names, heapdumps.DumpIndexName(i))
	}
	return names
}

// TestHeapDumpCompareInBackground uploads two real heap dumps together while
// the process's analysis slot is held: the upload answers 202 with the
// comparison analyzing before either dump is analyzed (JSON with the two
// dumps, page saying so). Once the slot is free, each dump is analyzed in
// turn by the background job, the progress stream tells which dump is
// analyzed (dump 2 of 2 while the second one computes its dominator tree),
// both indexes are stored, and the comparison built from them has jcmd's
// instance counts and the consumers' retained growth. On SQLite and on
// PostgreSQL.
func TestHeapDumpCompareInBackground(t *testing.T) {
	const b = 256 << 10
	small, hSmall := leakShapeRun(t, 2, b)
	large, hLarge := leakShapeRun(t, 5, b)
	consumer := "LeakShape$Consumer"
	want := jcmdInstances(hLarge, consumer) - jcmdInstances(hSmall, consumer)
	if want != 3 {
		t.Fatalf("jcmd counts %d → %d consumers", jcmdInstances(hSmall, consumer), jcmdInstances(hLarge, consumer))
	}
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			db, where := compareStore(t, backend)
			ts, _ := compareServer(t, db, where, t.TempDir())
			// While the second dump computes its dominator tree, the test reads
			// the report's progress; the analysis waits for it.
			seen := make(chan struct{})
			var log stageLog
			log.hook(t, func(ctx context.Context, stage string) {
				if stage != "dump 2/2 dominators" {
					return
				}
				select {
				case <-seen:
				case <-ctx.Done():
				case <-time.After(30 * time.Second):
				}
			})
			release := webtest.Hold(t, heapdumps.Analyses)
			code, up, raw := ts.Upload(t, large, small)
			if code != http.StatusAccepted || up.Status != store.ReportAnalyzing || !strings.HasPrefix(up.ReportURL, "/r/") {
				t.Fatalf("upload: %d %s", code, raw)
			}
			if s := log.list(); len(s) != 0 {
				t.Errorf("the upload answered after stages %v", s)
			}
			d := reportAnalysis(t, ts, up.ReportID)
			if d.Status != store.ReportAnalyzing || d.Progress == nil || d.Progress.Dumps != 2 || d.Progress.Dump != 0 {
				t.Errorf("the comparison's JSON before its analyses: %+v %+v", d, d.Progress)
			}
			doc, _ := ts.Page(t, up.ReportURL)
			if h := doc.Find(`[data-testid=headline]`).Text(); !strings.Contains(h, "Analyzing 2 heap dumps") ||
				doc.Find(`[data-testid=analysis][data-status=analyzing] progress[data-testid=analysis-progress]`).Length() != 1 {
				t.Errorf("the comparison's page before its analyses: %q", doc.Find(`[data-testid=analysis]`).Text())
			}
			if got := storedIndexes(t, db, up.ReportID, 2); len(got) != 0 {
				t.Errorf("indexes stored before any analysis: %v", got)
			}
			release()
			var mid analysisDoc
			for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				mid = reportAnalysis(t, ts, up.ReportID)
				if mid.Progress != nil && mid.Progress.Dump == 2 && strings.Contains(mid.Progress.Stage, "dominator") || mid.Status != store.ReportAnalyzing {
					break
				}
			}
			close(seen)
			p := mid.Progress
			if p == nil || p.Dump != 2 || p.Dumps != 2 || !strings.HasPrefix(p.Stage, "Dump 2 of 2 (LeakShape-5.hprof): Computing the dominator tree") ||
				p.Percent < 47.5 || p.Percent > 95 || p.DumpPercent <= 0 || p.DumpPercent >= 100 {
				t.Errorf("the progress while the second dump computes its dominators: %+v", p)
			}
			if st := waitAnalysis(t, ts, up.ReportID); st.Status != "done" {
				t.Fatalf("the comparison ended %+v", st)
			}
			s := log.list()
			one, two, stored, compared := firstAt(s, "dump 1/2 "), firstAt(s, "dump 2/2 "), firstAt(s, "store-indexes"), firstAt(s, "compare")
			if one < 0 || two <= one || stored <= two || compared <= stored || firstAt(s[two:], "dump 1/2") >= 0 {
				t.Errorf("stages %v: want dump 1, then dump 2, then storing the indexes, then comparing", s)
			}
			if got := storedIndexes(t, db, up.ReportID, 2); !slices.Equal(got, dumpIndexNames(2)) {
				t.Errorf("indexes stored with the comparison: %v", got)
			}

			code, _, body := ts.Get(t, "/api/reports/"+up.ReportID+"?n=all")
			if code != http.StatusOK {
				t.Fatalf("JSON: %d %s", code, body)
			}
			var got struct {
				Status   string `json:"status"`
				Analysis struct {
					Suspects []struct {
						Name      string
						Instances int64
					} `json:"suspects"`
					GrownRetained []heapdumps.RetainedChange `json:"grown_retained"`
					Dumps         []heapdumps.Brief          `json:"dumps"`
				} `json:"analysis"`
			}
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			a := got.Analysis
			if got.Status != "" || !slices.ContainsFunc(a.Suspects, func(c struct {
				Name      string
				Instances int64
			}) bool {
				return c.Name == consumer && c.Instances == want
			}) ||
				len(a.Dumps) != 2 || a.Dumps[0].Name != small.Name || a.Dumps[1].Name != large.Name {
				t.Errorf("JSON: status %q, suspects %+v, dumps %+v", got.Status, a.Suspects[:min(len(a.Suspects), 3)], a.Dumps)
			}
			grew := int64(-1)
			for _, c := range a.GrownRetained {
				if c.Name == consumer && c.Instances == want {
					grew = c.Retained
				}
			}
			if grew < want*(b+16) || float64(grew) > 1.01*float64(want*(b+16)) {
				t.Errorf("the consumers' retained size grew by %d, want %d × (%d + overheads) within 1%%", grew, want, b+16)
			}
		})
	}
}

// TestHeapDumpCompareResumesAfterRestart stops the server while a
// comparison's second dump computes its dominator tree: the comparison stays
// analyzing with nothing stored and no file left in the spool directory, and
// the next server on the same store analyzes both dumps again and completes
// it, with both indexes. On SQLite and on PostgreSQL.
func TestHeapDumpCompareResumesAfterRestart(t *testing.T) {
	first, second := webtest.LeakShapeDump(t, false, 2, 32<<10), webtest.LeakShapeDump(t, false, 4, 32<<10)
	second.Name = "LeakShape-4.hprof"
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			db, where := compareStore(t, backend)
			spool := t.TempDir()
			ts, stop := compareServer(t, db, where, spool)
			reached := make(chan struct{})
			var once sync.Once
			var log stageLog
			log.hook(t, func(ctx context.Context, stage string) {
				if stage == "dump 2/2 dominators" {
					once.Do(func() { close(reached); <-ctx.Done() })
				}
			})
			code, up, raw := ts.Upload(t, first, second)
			if code != http.StatusAccepted {
				t.Fatalf("upload: %d %s", code, raw)
			}
			select {
			case <-reached:
			case <-time.After(2 * time.Minute):
				t.Fatalf("the second dump's analysis never reached its dominators: stages %v", log.list())
			}
			stop()
			if rep, err := db.Report(t.Context(), up.ReportID); err != nil || rep.Status != store.ReportAnalyzing {
				t.Fatalf("after a stop midway the comparison is %q (%v), want analyzing", rep.Status, err)
			}
			if got := storedIndexes(t, db, up.ReportID, 2); len(got) != 0 {
				t.Errorf("a comparison stopped midway stored %v", got)
			}
			if left, _ := os.ReadDir(spool); len(left) != 0 {
				t.Errorf("the stopped comparison left %d files in the spool directory: %v", len(left), left)
			}
			before := len(log.list())
			ts2, _ := compareServer(t, db, where, t.TempDir())
			if st := waitAnalysis(t, ts2, up.ReportID); st.Status != "done" {
				t.Fatalf("after the restart the comparison ended %+v", st)
			}
			after := log.list()[before:]
			if firstAt(after, "dump 1/2 ") < 0 || firstAt(after, "compare") < 0 {
				t.Errorf("stages after the restart: %v", after)
			}
			if got := storedIndexes(t, db, up.ReportID, 2); !slices.Equal(got, dumpIndexNames(2)) {
				t.Errorf("indexes stored with the resumed comparison: %v", got)
			}
			rep, err := db.Report(t.Context(), up.ReportID)
			if err != nil || rep.Status != store.ReportReady || !strings.HasPrefix(summaryLine(rep.Summary), "2 heap dumps, reachable +") {
				t.Errorf("the resumed comparison: %q %v %q", rep.Status, err, summaryLine(rep.Summary))
			}
		})
	}
}

// TestHeapDumpCompareHostileDump uploads a real dump with a second one framed
// right but broken inside (an unknown sub-record tag, which only the analysis
// finds): the upload is accepted, the first dump is analyzed, and the
// comparison fails with the second's 4xx-class reason naming it (page, JSON,
// Markdown, dashboard), with no index stored, not even the first dump's. On
// SQLite and on PostgreSQL.
func TestHeapDumpCompareHostileDump(t *testing.T) {
	good := webtest.LeakShapeDump(t, false, 2, 4096)
	good.Name = "good.hprof"
	later := webtest.LeakShapeDump(t, false, 3, 4096) // written after good: the second
	broken := bytes.Clone(later.Data)
	pos := bytes.IndexByte(broken, 0) + 1 + 12
	for broken[pos] != 0x1C && broken[pos] != 0x0C {
		pos += 9 + int(binary.BigEndian.Uint32(broken[pos+5:]))
	}
	broken[pos+9] = 0x77 // no such sub-record
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			db, where := compareStore(t, backend)
			ts, _ := compareServer(t, db, where, t.TempDir())
			var log stageLog
			log.hook(t, nil)
			code, up, raw := ts.Upload(t, webtest.File{Name: "hostile.hprof", Data: broken}, good)
			if code != http.StatusAccepted {
				t.Fatalf("upload: %d %s", code, raw)
			}
			st := waitAnalysis(t, ts, up.ReportID)
			if st.Status != "failed" || st.Code != http.StatusUnprocessableEntity || !strings.HasPrefix(st.Error, "dump 2 of 2, hostile.hprof: ") ||
				strings.Contains(st.Error, "\n") {
				t.Errorf("ended %+v, want failed with 422 naming the second dump", st)
			}
			if s := log.list(); firstAt(s, "dump 1/2 store-index") < 0 || firstAt(s, "store-indexes") >= 0 || firstAt(s, "compare") >= 0 {
				t.Errorf("stages %v: want the first dump analyzed, nothing stored or compared", s)
			}
			if got := storedIndexes(t, db, up.ReportID, 2); len(got) != 0 {
				t.Errorf("a failed comparison stored %v", got)
			}
			d := reportAnalysis(t, ts, up.ReportID)
			if d.Status != "failed" || d.Progress == nil || d.Progress.Error != st.Error {
				t.Errorf("JSON %+v", d)
			}
			doc, _ := ts.Page(t, up.ReportURL)
			if got := doc.Find(`[data-testid=analysis][data-status=failed] [data-testid=analysis-error]`).Text(); !strings.Contains(got, st.Error) ||
				!strings.Contains(doc.Find(`[data-testid=headline]`).Text(), "The heap dumps could not be compared.") {
				t.Errorf("the page says %q / %q", doc.Find(`[data-testid=headline]`).Text(), got)
			}
			if _, _, pg := ts.Get(t, "/"); !strings.Contains(string(pg), "the analysis failed: "+st.Error) {
				t.Errorf("the dashboard does not list the comparison as failed")
			}
			if _, _, md := ts.Get(t, up.ReportURL+".md"); !strings.Contains(string(md), "The analysis failed (422)") || !strings.Contains(string(md), "JVM heap dumps") {
				t.Errorf("Markdown %s", md)
			}
		})
	}
}
