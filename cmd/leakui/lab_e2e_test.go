package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/leakui/leakui/recovery"
)

// reportDoc is the part of GET /api/reports/{id} for runs the tests read.
type reportDoc struct {
	Kind      string `json:"kind"`
	Artifacts []struct {
		SHA256 string `json:"sha256"`
		Name   string `json:"name"`
		URL    string `json:"url"`
		Kind   string `json:"kind"`
	} `json:"artifacts"`
	Analysis struct {
		Verdict       string `json:"verdict"`
		GoroutineDiff struct {
			Rows []struct {
				Name string `json:"name"`
				Flat int64  `json:"flat"`
				Cum  int64  `json:"cum"`
			} `json:"rows"`
		} `json:"goroutine_diff"`
	} `json:"analysis"`
}

func (s *server) download(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(s.base + url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	return b
}

// TestLabCheckpointEndToEnd runs SAMZA-2785's storm leaky and with apache/samza#1674
// through the real server and the real workload binary, whose kfake broker runs in a
// process of its own: at the default read fraction none of the 30 containers reads,
// so all 30 consumers leak.
func TestLabCheckpointEndToEnd(t *testing.T) {
	s := startServer(t, t.TempDir())
	code, out := s.post(t, "/api/runs", `{"workload":"checkpoint","variant":"leaky","mode":"active","cycles":30,"tasks":2}`)
	if code != http.StatusAccepted {
		t.Fatalf("POST /api/runs: %d %v", code, out)
	}
	r := s.waitRun(t, out["id"], 3*time.Minute)
	starts, stops := r.Counters["consumer_starts"], r.Counters["consumer_stops"]
	if r.Status != "done" || r.Verdict != "leak" || starts != 30 || starts-stops != 30 || r.Snapshots < 10 {
		t.Fatalf("leaky run: %+v\n%s", r, s.log.String())
	}
	var doc reportDoc
	if code := s.getJSON(t, strings.Replace(r.ReportURL, "/r/", "/api/reports/", 1), &doc); code != 200 || doc.Kind != "run" {
		t.Fatalf("run report: %d %s", code, doc.Kind)
	}
	// The goroutines that grew between the first and the last snapshot, by the
	// function they were started in, are the consumers' poll loops and kafka-go
	// readers, 30 of each (less the one or two that had started at the first
	// snapshot).
	grew := map[string]int64{}
	for _, row := range doc.Analysis.GoroutineDiff.Rows {
		grew[row.Name] = row.Cum
	}
	for _, frame := range []string{"github.com/leakui/leakui/checkpoint.(*SystemConsumer).pollLoop", "github.com/segmentio/kafka-go.(*Reader).start.func1"} {
		if grew[frame] < 28 {
			t.Errorf("%s grew by %d goroutines, want ≥ 28 (diff rows %v)", frame, grew[frame], doc.Analysis.GoroutineDiff.Rows)
		}
	}
	// The run's own log, counted like grep -c, equals the counters.
	var log []byte
	for _, a := range doc.Artifacts {
		if strings.HasSuffix(a.Name, ".log") {
			log = s.download(t, a.URL)
		}
	}
	for pattern, want := range map[string]int64{
		"Starting the checkpoint SystemConsumer from oldest offset": starts,
		"Stopping system consumer":                                  r.Counters["manager_consumer_stops"],
		": Consumer started":                                        starts,
	} {
		if got := int64(bytes.Count(log, []byte(pattern))); got != want {
			t.Errorf("the log has %d lines with %q, the counters say %d", got, pattern, want)
		}
	}

	code, out = s.post(t, "/api/runs", `{"workload":"checkpoint","variant":"pr1674","mode":"active","cycles":30,"tasks":2}`)
	if code != http.StatusAccepted {
		t.Fatalf("POST pr1674: %d %v", code, out)
	}
	fixed := s.waitRun(t, out["id"], 3*time.Minute)
	if fixed.Status != "done" || fixed.Verdict != "no-leak" || fixed.Counters["consumer_starts"] != fixed.Counters["consumer_stops"] {
		t.Errorf("pr1674 run: %+v", fixed)
	}
	resp, err := http.Get(s.base + "/runs/compare?a=" + r.ID + "&b=" + fixed.ID)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(page, []byte("30 were never closed")) || !bytes.Contains(page, []byte("none left open")) {
		t.Errorf("compare page: %d", resp.StatusCode)
	}
}

// children lists the pids whose parent is pid.
func children(pid int) []int {
	var out []int
	entries, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, e := range entries {
		b, err := os.ReadFile(e)
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		fields := strings.Fields(string(b[i+1:]))
		if len(fields) > 1 && fields[0] != "Z" && fields[1] == strconv.Itoa(pid) {
			child, _ := strconv.Atoi(filepath.Base(filepath.Dir(e)))
			out = append(out, child)
		}
	}
	return out
}

func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return !strings.HasPrefix(strings.TrimSpace(string(b[i+1:])), "Z")
}

// waitGone waits for a process to disappear.
func waitGone(t *testing.T, pid int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d is still alive after %s", pid, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitStep waits until a run has made progress and returns its workload child.
func (s *server) waitStep(t *testing.T, id string) int {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		var r runState
		s.getJSON(t, "/api/runs/"+id, &r)
		if r.Step > 0 {
			kids := children(s.cmd.Process.Pid)
			if len(kids) == 1 {
				return kids[0]
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("run %s made no progress\n%s", id, s.log.String())
	return 0
}

// TestLabCancelKillAndRestart cancels a run, kills the server in the middle of
// another, restarts it, and checks that no child survives, the killed run is
// interrupted and what it captured is intact.
func TestLabCancelKillAndRestart(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir, "-run-lease", "2s")
	long := `{"workload":"checkpoint","variant":"leaky","cycles":5000,"tasks":1}`
	_, first := s.post(t, "/api/runs", long)
	child := s.waitStep(t, first["id"])
	if code, _ := s.post(t, "/api/runs/"+first["id"]+"/cancel", ""); code != http.StatusAccepted {
		t.Fatalf("cancel: %d", code)
	}
	if r := s.waitRun(t, first["id"], time.Minute); r.Status != "cancelled" {
		t.Errorf("cancelled run is %s", r.Status)
	}
	waitGone(t, child, 10*time.Second)

	_, second := s.post(t, "/api/runs", long)
	child = s.waitStep(t, second["id"])
	var before runState
	for before.Snapshots == 0 {
		s.getJSON(t, "/api/runs/"+second["id"], &before)
		time.Sleep(100 * time.Millisecond)
	}
	s.kill()
	waitGone(t, child, 10*time.Second) // the kernel kills it with the server (Pdeathsig)
	runDirs := filepath.Join(dir, "uploads", "*", "runs", "leakui-run-*")
	if left, _ := filepath.Glob(runDirs); len(left) != 1 {
		t.Fatalf("the killed server left %d run directories, want its one: %v", len(left), left)
	}

	s2 := startServer(t, dir, "-run-lease", "2s")
	if left, _ := filepath.Glob(runDirs); len(left) != 0 {
		t.Errorf("the restarted server kept the run directories of the killed one: %v", left)
	}
	deadline := time.Now().Add(30 * time.Second)
	var r runState
	for {
		s2.getJSON(t, "/api/runs/"+second["id"], &r)
		if r.Status != "running" || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if r.Status != "interrupted" {
		t.Fatalf("after the crash the run is %q", r.Status)
	}
	if len(children(s2.cmd.Process.Pid)) != 0 {
		t.Error("the restarted server has children")
	}
	checkIntegrity(t, filepath.Join(dir, "leakui.db"))
	_ = syscall.SIGKILL
}

// TestLabRecoveryEndToEnd runs KAFKA-3933: zstd leaky strands decoder goroutines;
// gzip leaky (the JVM native zlib model) grows RSS while the Go heap stays flat;
// drain leaks nothing.
func TestLabRecoveryEndToEnd(t *testing.T) {
	s := startServer(t, t.TempDir())
	start := func(body string) runState {
		t.Helper()
		code, out := s.post(t, "/api/runs", body)
		if code != http.StatusAccepted {
			t.Fatalf("POST %s: %d %v", body, code, out)
		}
		return s.waitRun(t, out["id"], 3*time.Minute)
	}
	zstd := start(`{"workload":"recovery","variant":"leaky","codec":"zstd","partitions":1,"segments":3,"batches":4,"records":300}`)
	// Batches of 300 records are larger than the index interval: every batch
	// but the first of a segment gets an index entry, and an iterator.
	if zstd.Status != "done" || zstd.Verdict != "leak" || zstd.Counters["iterators_opened"]-zstd.Counters["iterators_closed"] != 9 {
		t.Errorf("zstd leaky: %+v", zstd)
	}
	// Each leaked iterator strands the decoder's 3 goroutines; the first point is
	// taken after the first segment's 3 iterators.
	if pts := zstd.Progress.Points; len(pts) < 2 || pts[len(pts)-1].Goroutines-pts[0].Goroutines < 6*3 {
		t.Errorf("zstd leaky goroutines: %+v", pts)
	}

	// 30 segments: about 3,000 iterators left open, enough for RSS − heap in
	// use to grow past the 16 MiB below which the page's heap vs RSS callout
	// stays quiet (web/run_page.go calloutMinGap); 10 segments stayed under it.
	gzip := start(`{"workload":"recovery","variant":"leaky","codec":"gzip","partitions":1,"segments":30,"batches":300}`)
	pts := gzip.Progress.Points
	if gzip.Status != "done" || gzip.Verdict != "leak" || len(pts) < 2 {
		t.Fatalf("gzip leaky: %+v", gzip)
	}
	first, last := pts[0], pts[len(pts)-1]
	// The iterators left open between the two points, each holding about
	// three resident pages of its 40 KiB block (the calibrated cost). The
	// heap's figure is not compared: the lab's captures allocate buffers whose
	// pages are not all touched, which counts as heap in use but not in RSS.
	opened := (last.OffHeap - first.OffHeap) / recovery.GzipOffheapBytes
	open := gzip.Counters["iterators_open"]
	resident := gzip.Counters["offheap_resident_bytes"]
	if opened < (30-1)*300/3 || last.RSS-first.RSS < opened*(3<<12)*3/4 || resident < open*(3<<12)*3/4 || resident > open*(3<<12)*5/4 {
		t.Errorf("gzip leaky: RSS grew by %d for %d more open iterators; %d resident for %d open", last.RSS-first.RSS, opened, resident, open)
	}
	if !strings.Contains(strings.Join(gzip.Details, " "), "in a JVM (the figure from the JVM") {
		t.Errorf("gzip leaky: the verdict's details do not name the JVM's figure: %q", gzip.Details)
	}
	var doc reportDoc
	s.getJSON(t, strings.Replace(gzip.ReportURL, "/r/", "/api/reports/", 1), &doc)
	page := s.download(t, "/runs/"+gzip.ID)
	if !bytes.Contains(page, []byte(`data-testid="run-callout"`)) || !bytes.Contains(page, []byte("native zlib memory")) {
		t.Errorf("the gzip run's page does not call out the heap vs RSS gap: first %+v last %+v", pts[0], pts[len(pts)-1])
	}

	drain := start(`{"workload":"recovery","variant":"drain","codec":"gzip","partitions":1,"segments":4,"batches":100}`)
	if drain.Status != "done" || drain.Verdict != "no-leak" || drain.Counters["iterators_opened"] != drain.Counters["iterators_closed"] {
		t.Errorf("gzip drain: %+v", drain)
	}
	// The write phase came as progress events of its own, k of n, which the lab
	// kept apart from the recovery's steps: its phase line, at its last event.
	for _, r := range []runState{gzip, drain} {
		ph := r.Progress.Phases
		if len(ph) != 1 || ph[0].Name != "writing segments" || ph[0].Step != r.Steps || ph[0].Steps != r.Steps || r.Counters["segments_written"] != r.Steps || r.Step != r.Steps {
			t.Errorf("run %s: phases %+v after %d of %d segments recovered, %d written", r.ID, ph, r.Step, r.Steps, r.Counters["segments_written"])
		}
	}
}

// presetDoc is the part of a run report's JSON that names the suspects.
type presetDoc struct {
	Analysis struct {
		GoroutineDiff   presetDiff   `json:"goroutine_diff"`
		HeapDiff        presetDiff   `json:"heap_diff"`
		GoroutineSeries presetSeries `json:"goroutine_series"`
		HeapSeries      presetSeries `json:"heap_series"`
	} `json:"analysis"`
}

type presetDiff struct {
	Rows []struct {
		Name string `json:"name"`
		Flat int64  `json:"flat"`
	} `json:"rows"`
}

type presetSeries struct {
	Suspects []struct {
		Name string `json:"name"`
	} `json:"suspects"`
}

// TestLabLeakyPresetNamesTheConsumer runs the lab's SAMZA-2785 production preset
// (1741 rebalances, leaky) through the real server and workload, with the kfake
// broker in a process of its own, and checks that the page, the JSON and the
// Markdown of its report all name the consumer's own code first: the poll loop for
// the goroutines (counted by the function they were started in, never the
// runtime's park functions) and the consumer's envelopes for the heap. Nothing of
// the broker appears.
func TestLabLeakyPresetNamesTheConsumer(t *testing.T) {
	const pollLoop = "github.com/leakui/leakui/checkpoint.(*SystemConsumer).pollLoop"
	const consumerPkg = "github.com/leakui/leakui/checkpoint."
	s := startServer(t, t.TempDir())
	code, out := s.post(t, "/api/runs", `{"preset":"samza-2785-production"}`)
	if code != http.StatusAccepted {
		t.Fatalf("POST preset: %d %v", code, out)
	}
	r := s.waitRun(t, out["id"], 5*time.Minute)
	if r.Status != "done" || r.Verdict != "leak" || r.Counters["consumer_starts"] != 1741 || r.Counters["consumer_stops"] != 14 {
		t.Fatalf("preset run: %+v\n%s", r, s.log.String())
	}
	reportID := r.ReportURL[strings.LastIndex(r.ReportURL, "/")+1:]

	var doc presetDoc
	if code := s.getJSON(t, "/api/reports/"+reportID, &doc); code != 200 {
		t.Fatalf("report JSON: %d", code)
	}
	a := doc.Analysis
	if len(a.GoroutineDiff.Rows) < 2 || a.GoroutineDiff.Rows[0].Name != pollLoop || a.GoroutineDiff.Rows[0].Flat != 1727 {
		t.Errorf("JSON goroutine diff rows %+v, want %s +1727 first", a.GoroutineDiff.Rows, pollLoop)
	}
	if len(a.GoroutineSeries.Suspects) == 0 || a.GoroutineSeries.Suspects[0].Name != pollLoop {
		t.Errorf("JSON goroutine suspects %+v, want %s first", a.GoroutineSeries.Suspects, pollLoop)
	}
	if len(a.HeapDiff.Rows) == 0 || !strings.HasPrefix(a.HeapDiff.Rows[0].Name, consumerPkg) {
		t.Errorf("JSON heap diff rows %+v, want the consumer's code first", a.HeapDiff.Rows)
	}
	if len(a.HeapSeries.Suspects) == 0 || !strings.HasPrefix(a.HeapSeries.Suspects[0].Name, consumerPkg) {
		t.Errorf("JSON heap suspects %+v, want the consumer's code first", a.HeapSeries.Suspects)
	}
	for _, row := range a.GoroutineDiff.Rows {
		if strings.Contains(row.Name, "kfake") || strings.HasPrefix(row.Name, "runtime.") {
			t.Errorf("goroutine diff row %q: the broker and the runtime belong elsewhere", row.Name)
		}
	}

	page := s.download(t, "/r/"+reportID)
	html, err := goquery.NewDocumentFromReader(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	first := func(sel string) string { return strings.TrimSpace(html.Find(sel).First().Text()) }
	if got := first("[data-testid=goroutine-diff] [data-testid=diff-row] [data-testid=name]"); got != pollLoop {
		t.Errorf("page: first goroutine diff row %q, want %s", got, pollLoop)
	}
	if got := first("[data-testid=run-goroutine-series] [data-testid=series-suspects] [data-testid=series-name]"); got != pollLoop {
		t.Errorf("page: first goroutine suspect %q, want %s", got, pollLoop)
	}
	if got := first("[data-testid=heap-diff] [data-testid=diff-row] [data-testid=name]"); !strings.HasPrefix(got, consumerPkg) {
		t.Errorf("page: first heap diff row %q, want the consumer's code", got)
	}
	if got := first("[data-testid=run-heap-series] [data-testid=series-suspects] [data-testid=series-name]"); !strings.HasPrefix(got, consumerPkg) {
		t.Errorf("page: first heap suspect %q, want the consumer's code", got)
	}

	md := string(s.download(t, "/r/"+reportID+".md"))
	wantLines := []string{
		"- goroutine snapshots: **leak suspected** — github.com/leakui/leakui/checkpoint.(\\*SystemConsumer).pollLoop grew steadily",
		"- inuse\\_space snapshots: **leak suspected** — github.com/leakui/leakui/checkpoint.", // the sample type through markdown.Escape
		"| +1,727 | `" + pollLoop + "` |",
	}
	for _, w := range wantLines {
		if !strings.Contains(md, w) {
			t.Errorf("Markdown lacks %q:\n%s", w, md)
		}
	}
	// The first row of each Markdown table is the consumer's.
	for _, table := range []string{"inuse\\_space, first → last snapshot", "goroutine, first → last snapshot"} {
		i := strings.Index(md, table)
		if i < 0 {
			t.Errorf("Markdown lacks the table %q", table)
			continue
		}
		rows := strings.Split(md[i:], "\n")
		if len(rows) < 5 || !strings.Contains(rows[4], "`"+consumerPkg) {
			t.Errorf("Markdown table %q: first row %q, want the consumer's code", table, rows[min(4, len(rows)-1)])
		}
	}
}
