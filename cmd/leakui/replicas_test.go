package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/pgtest"
)

// sseResult is what a client of /runs/{id}/events saw.
type sseResult struct {
	progress int
	end      map[string]string
	last     runState
	err      error
}

// followEvents reads a run's server-sent events until the end event or EOF.
func followEvents(url string) sseResult {
	var res sseResult
	resp, err := http.Get(url)
	if err != nil {
		res.err = err
		return res
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		res.err = &httpError{resp.StatusCode, string(b)}
		return res
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data := []byte(strings.TrimPrefix(line, "data: "))
			switch event {
			case "progress":
				res.progress++
				res.last = runState{}
				json.Unmarshal(data, &res.last)
			case "end":
				json.Unmarshal(data, &res.end)
				return res
			}
		}
	}
	res.err = sc.Err()
	return res
}

type httpError struct {
	status int
	body   string
}

func (e *httpError) Error() string { return http.StatusText(e.status) + ": " + e.body }

// get returns a page's status and body.
func (s *server) get(t *testing.T, path string) (int, []byte) {
	t.Helper()
	if !strings.HasPrefix(path, "http://") && !strings.HasPrefix(path, "https://") {
		path = s.base + path // the upload API's report_url is absolute already
	}
	resp, err := http.Get(path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// TestReplicasShareOnePostgres runs two real `leakui serve` processes on one
// PostgreSQL database: what one stores the other serves, a run started on one is
// followed on the other while the first streams its events, and a replica killed
// in the middle of a run leaves it interrupted — marked so by the other replica,
// which never ran it, once the lease expires.
func TestReplicasShareOnePostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	a := startServer(t, t.TempDir(), "-db", dsn, "-run-lease", "3s")
	b := startServer(t, t.TempDir(), "-db", dsn, "-run-lease", "3s")
	for _, s := range []*server{a, b} {
		// The log line follows the address on stdout.
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(s.log.String(), "store=postgres"); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("replica does not use PostgreSQL:\n%s", s.log.String())
			}
		}
	}

	// Upload on A, open on B: the page, the JSON and the original bytes.
	path := fixtures.Path(t, "pprof", "erigon-integration-heap.pb.gz")
	status, link := uploadFile(t, a.base, path)
	if status != http.StatusCreated || !strings.HasPrefix(link, "/r/") {
		t.Fatalf("upload on A: %d %q", status, link)
	}
	if code, page := b.get(t, link); code != 200 || !bytes.Contains(page, []byte("heap.pb.gz")) {
		t.Errorf("B serves %s with %d", link, code)
	}
	var doc struct {
		Artifacts []struct {
			SHA256 string `json:"sha256"`
		} `json:"artifacts"`
	}
	if code := b.getJSON(t, strings.Replace(link, "/r/", "/api/reports/", 1), &doc); code != 200 || len(doc.Artifacts) != 1 {
		t.Fatalf("B's report JSON: %d %+v", code, doc)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if code, got := b.get(t, "/a/"+doc.Artifacts[0].SHA256); code != 200 || !bytes.Equal(got, want) {
		t.Errorf("B's download: %d, %d bytes, want the %d bytes uploaded to A", code, len(got), len(want))
	}

	// A run on A, followed through A's events while B reads it from the store.
	code, out := a.post(t, "/api/runs", `{"workload":"checkpoint","variant":"leaky","mode":"active","cycles":150,"tasks":2}`)
	if code != http.StatusAccepted {
		t.Fatalf("POST /api/runs on A: %d %v", code, out)
	}
	id := out["id"]
	events := make(chan sseResult, 1)
	go func() { events <- followEvents(a.base + "/runs/" + id + "/events") }()
	var sawRunning bool
	var sse sseResult
	for waiting := true; waiting; {
		select {
		case sse = <-events:
			waiting = false
		case <-time.After(100 * time.Millisecond):
			var r runState
			if code := b.getJSON(t, "/api/runs/"+id, &r); code != 200 {
				t.Fatalf("B: GET /api/runs/%s: %d", id, code)
			}
			if r.Status == "running" && r.Step > 0 {
				sawRunning = true
			}
			if code, _ := b.get(t, link); code != 200 {
				t.Errorf("B stopped serving %s during the run: %d", link, code)
			}
		case <-time.After(2 * time.Minute):
			t.Fatalf("A's events did not end\n%s", a.log.String())
		}
	}
	if sse.err != nil || sse.progress == 0 || sse.end["status"] != "done" {
		t.Fatalf("A's events: %d progress, end %v, err %v", sse.progress, sse.end, sse.err)
	}
	if !sawRunning {
		t.Error("B never saw the run in progress")
	}
	fromB := b.waitRun(t, id, time.Minute)
	if fromB.Status != "done" || fromB.Verdict != "leak" || fromB.ReportURL == "" ||
		fromB.Counters["consumer_starts"] != 150 || fromB.Counters["consumer_stops"] != 1 {
		t.Fatalf("B: run %+v", fromB)
	}
	if last := deterministic(sse.last.Counters); !maps.Equal(last, deterministic(fromB.Counters)) {
		t.Errorf("A's last event counters %v, B's %v", last, fromB.Counters)
	}
	for _, p := range []string{fromB.ReportURL, "/runs/" + id} {
		if code, page := b.get(t, p); code != 200 || !bytes.Contains(page, []byte("149 were never closed")) {
			t.Errorf("B: %s: %d, no verdict", p, code)
		}
	}

	// A run on A, A killed: B, which never ran it, marks it interrupted once its
	// lease expires.
	code, out = a.post(t, "/api/runs", `{"workload":"checkpoint","variant":"leaky","cycles":5000,"tasks":1}`)
	if code != http.StatusAccepted {
		t.Fatalf("POST the long run: %d %v", code, out)
	}
	long := out["id"]
	var seen runState
	for deadline := time.Now().Add(time.Minute); seen.Step == 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("B never saw the long run make progress\n%s", a.log.String())
		}
		b.getJSON(t, "/api/runs/"+long, &seen)
	}
	kids := children(a.cmd.Process.Pid)
	a.kill()
	killed := time.Now()
	for _, pid := range kids {
		waitGone(t, pid, 10*time.Second)
	}
	var r runState
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		b.getJSON(t, "/api/runs/"+long, &r)
		if r.Status != "running" || time.Now().After(deadline) {
			break
		}
	}
	if r.Status != "interrupted" || !strings.Contains(r.Reason, "stopped before it finished") || r.Step < seen.Step {
		t.Fatalf("after A was killed B says the run is %q (%q) at step %d", r.Status, r.Reason, r.Step)
	}
	t.Logf("B marked the run interrupted %s after A was killed (lease 3s)", time.Since(killed).Round(100*time.Millisecond))
	if !strings.Contains(b.log.String(), "runs interrupted") {
		t.Errorf("B's log does not say it interrupted the run:\n%s", b.log.String())
	}
}
