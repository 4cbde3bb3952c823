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

	"github.com/leakui/leakui/recovery"
)

// reportDoc is the part of GET /api/reports/{id} for runs the tests read.
type reportDoc struct {
	Kind      string `json:"kind"`
	Artifacts []struct {
		SHA256 string `json:"sha256"`
		Name   string `json:"name"`
		URL    string `json:"url"`
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

// TestLabCheckpointEndToEnd runs SAMZA-2785 leaky and with the upstream fix through
// the real server and the real workload binary, over the embedded Kafka broker.
func TestLabCheckpointEndToEnd(t *testing.T) {
	s := startServer(t, t.TempDir())
	code, out := s.post(t, "/api/runs", `{"workload":"checkpoint","variant":"leaky","mode":"active","cycles":30,"tasks":2}`)
	if code != http.StatusAccepted {
		t.Fatalf("POST /api/runs: %d %v", code, out)
	}
	r := s.waitRun(t, out["id"], 3*time.Minute)
	starts, stops := r.Counters["consumer_starts"], r.Counters["consumer_stops"]
	if r.Status != "done" || r.Verdict != "leak" || starts != 30 || starts-stops != 29 || r.Snapshots < 10 {
		t.Fatalf("leaky run: %+v\n%s", r, s.log.String())
	}
	var doc reportDoc
	if code := s.getJSON(t, strings.Replace(r.ReportURL, "/r/", "/api/reports/", 1), &doc); code != 200 || doc.Kind != "run" {
		t.Fatalf("run report: %d %s", code, doc.Kind)
	}
	// The goroutines that grew between the first and the last snapshot are the
	// consumers' poll loops and kafka-go readers, 29 of each.
	grew := map[string]int64{}
	for _, row := range doc.Analysis.GoroutineDiff.Rows {
		grew[row.Name] = row.Cum
	}
	for _, frame := range []string{"github.com/leakui/leakui/checkpoint.(*SystemConsumer).pollLoop", "github.com/segmentio/kafka-go.(*reader).run"} {
		if grew[frame] < 29 {
			t.Errorf("%s grew by %d goroutines, want ≥ 29 (diff rows %v)", frame, grew[frame], doc.Analysis.GoroutineDiff.Rows)
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
		"Stopping system consumer":                                  stops,
		": Consumer started":                                        starts,
	} {
		if got := int64(bytes.Count(log, []byte(pattern))); got != want {
			t.Errorf("the log has %d lines with %q, the counters say %d", got, pattern, want)
		}
	}

	code, out = s.post(t, "/api/runs", `{"workload":"checkpoint","variant":"fix-guard","mode":"active","cycles":30,"tasks":2}`)
	if code != http.StatusAccepted {
		t.Fatalf("POST fix-guard: %d %v", code, out)
	}
	fixed := s.waitRun(t, out["id"], 3*time.Minute)
	if fixed.Status != "done" || fixed.Verdict != "no-leak" || fixed.Counters["consumer_starts"] != fixed.Counters["consumer_stops"] {
		t.Errorf("fix-guard run: %+v", fixed)
	}
	resp, err := http.Get(s.base + "/runs/compare?a=" + r.ID + "&b=" + fixed.ID)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(page, []byte("29 were never closed")) || !bytes.Contains(page, []byte("none left open")) {
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

	s2 := startServer(t, dir, "-run-lease", "2s")
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

	gzip := start(`{"workload":"recovery","variant":"leaky","codec":"gzip","partitions":1,"segments":10,"batches":300}`)
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
	if opened < (10-1)*300/3 || last.RSS-first.RSS < opened*(3<<12)*3/4 || resident < open*(3<<12)*3/4 || resident > open*(3<<12)*5/4 {
		t.Errorf("gzip leaky: RSS grew by %d for %d more open iterators; %d resident for %d open", last.RSS-first.RSS, opened, resident, open)
	}
	if !strings.Contains(gzip.Reason, "in a JVM (the figure from the JVM") {
		t.Errorf("gzip leaky: the verdict does not name the JVM's figure: %s", gzip.Reason)
	}
	var doc reportDoc
	s.getJSON(t, strings.Replace(gzip.ReportURL, "/r/", "/api/reports/", 1), &doc)
	page := s.download(t, "/runs/"+gzip.ID)
	if !bytes.Contains(page, []byte(`data-testid="run-callout"`)) || !bytes.Contains(page, []byte("native zlib memory")) {
		t.Error("the gzip run's page does not call out the heap vs RSS gap")
	}

	drain := start(`{"workload":"recovery","variant":"drain","codec":"gzip","partitions":1,"segments":4,"batches":100}`)
	if drain.Status != "done" || drain.Verdict != "no-leak" || drain.Counters["iterators_opened"] != drain.Counters["iterators_closed"] {
		t.Errorf("gzip drain: %+v", drain)
	}
}
