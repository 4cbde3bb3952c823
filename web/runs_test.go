package web

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/lab"
)

// labServer is a test server whose lab runs the test binary as its workload.
func labServer(t *testing.T, step string, cfg lab.Config) *testServer {
	t.Helper()
	t.Setenv("LEAKUI_LAB_CHILD", "1")
	t.Setenv("LEAKUI_LAB_STEP", step)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Executable, cfg.TempDir = exe, t.TempDir()
	if cfg.Hold == 0 {
		cfg.Hold = 30 * time.Second
	}
	return newTestServer(t, Config{Lab: &cfg, RunsPerMinute: -1})
}

func postJSON(t *testing.T, url string, body string) (int, map[string]string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]string
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// waitRun polls GET /api/runs/{id} until the run has ended.
func waitRun(t *testing.T, ts *testServer, id string) runJSON {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		code, _, body := ts.get(t, "/api/runs/"+id)
		var r runJSON
		if code != 200 || json.Unmarshal(body, &r) != nil {
			t.Fatalf("GET /api/runs/%s: %d %s", id, code, body)
		}
		if r.Status != lab.StatusRunning {
			return r
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("run %s did not end", id)
	return runJSON{}
}

func TestRunThroughTheAPI(t *testing.T) {
	ts := labServer(t, "20ms", lab.Config{Snapshots: 4})
	code, out := postJSON(t, ts.URL+"/api/runs", `{"workload":"checkpoint","variant":"leaky","mode":"active","cycles":12,"tasks":1}`)
	if code != http.StatusAccepted || out["id"] == "" || out["url"] != "/runs/"+out["id"] {
		t.Fatalf("POST /api/runs: %d %v", code, out)
	}
	// Follow the events while it runs: progress events, then an end event.
	resp, err := http.Get(ts.URL + "/runs/" + out["id"] + "/events")
	if err != nil {
		t.Fatal(err)
	}
	events, last := readEvents(t, resp)
	if events["progress"] == 0 || events["end"] != 1 {
		t.Errorf("events %v", events)
	}
	if last.Step != 12 || last.Counters["consumer_starts"] != 12 {
		t.Errorf("last progress event: step %d counters %v", last.Step, last.Counters)
	}
	r := waitRun(t, ts, out["id"])
	if r.Status != lab.StatusDone || r.Verdict != lab.VerdictLeak || r.Counters["consumer_starts"]-r.Counters["consumer_stops"] != 12 ||
		r.Snapshots < 4 || r.ReportURL == "" {
		t.Fatalf("run ended %+v", r)
	}
	for _, path := range []string{"/runs/" + r.ID, r.ReportURL} {
		code, _, pg := ts.get(t, path)
		if code != 200 || !bytes.Contains(pg, []byte(`data-testid="run-verdict"`)) || !bytes.Contains(pg, []byte("12 were never closed")) ||
			!bytes.Contains(pg, []byte(`data-testid="goroutine-diff"`)) {
			t.Errorf("%s: %d, verdict/diff missing", path, code)
		}
	}
	code, _, md := ts.get(t, r.ReportURL+".md")
	if code != 200 || !bytes.Contains(md, []byte("verdict: **leak**")) || !bytes.Contains(md, []byte("consumer starts: 12")) {
		t.Errorf("markdown %d:\n%s", code, md)
	}
	doc := reportDoc(t, ts, strings.Replace(r.ReportURL, "/r/", "/api/reports/", 1))
	if doc.Kind != "run" || len(doc.Artifacts) < 9 { // ≥4 heap + ≥4 goroutine + the log
		t.Errorf("report %s with %d artifacts", doc.Kind, len(doc.Artifacts))
	}
	_, _, home := ts.get(t, "/")
	if !bytes.Contains(home, []byte("/runs/"+r.ID)) {
		t.Error("the dashboard does not list the run")
	}
}

// waitProgress waits for a run's first step.
func waitProgress(t *testing.T, ts *testServer, id string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		_, _, body := ts.get(t, "/api/runs/"+id)
		var r runJSON
		json.Unmarshal(body, &r)
		if r.Step > 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("run %s made no progress", id)
}

// readEvents reads a server-sent event stream to its end.
func readEvents(t *testing.T, resp *http.Response) (map[string]int, lab.Progress) {
	t.Helper()
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	counts := map[string]int{}
	var last lab.Progress
	var event string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
			counts[event]++
		case strings.HasPrefix(line, "data: ") && event == "progress":
			json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &last)
		}
	}
	return counts, last
}

func TestRunLimitsCancelAndCompare(t *testing.T) {
	ts := labServer(t, "100ms", lab.Config{MaxRuns: 1, NoCapture: true})
	code, first := postJSON(t, ts.URL+"/api/runs", `{"workload":"checkpoint","cycles":1000,"tasks":1}`)
	if code != 202 {
		t.Fatal(code)
	}
	code, busy := postJSON(t, ts.URL+"/api/runs", `{"workload":"checkpoint","cycles":5,"tasks":1}`)
	if code != http.StatusTooManyRequests || !strings.Contains(busy["error"], "1 of 1 allowed are running") {
		t.Errorf("second run: %d %v", code, busy)
	}
	for body, want := range map[string]int{
		`{"workload":"nope"}`:                       400,
		`{"workload":"checkpoint","cycles":999999}`: 413,
		`{"workload":"checkpoint","colour":"red"}`:  400,
		`not json`:                               400,
		`{"preset":"samza-2785-does-not-exist"}`: 400,
	} {
		if code, out := postJSON(t, ts.URL+"/api/runs", body); code != want || out["error"] == "" {
			t.Errorf("POST %s: %d %v, want %d", body, code, out, want)
		}
	}
	waitProgress(t, ts, first["id"])
	code, _ = postJSON(t, ts.URL+"/api/runs/"+first["id"]+"/cancel", "")
	if code != http.StatusAccepted {
		t.Errorf("cancel: %d", code)
	}
	r := waitRun(t, ts, first["id"])
	if r.Status != lab.StatusCancelled || r.Step == 0 {
		t.Errorf("cancelled run: %+v", r)
	}
	if code, _ := postJSON(t, ts.URL+"/api/runs/"+first["id"]+"/cancel", ""); code != http.StatusConflict {
		t.Errorf("cancelling an ended run: %d", code)
	}
	t.Setenv("LEAKUI_LAB_STEP", "1ms")
	code, second := postJSON(t, ts.URL+"/api/runs", `{"workload":"checkpoint","variant":"pr1674","cycles":5,"tasks":1}`)
	if code != 202 {
		t.Fatal(code)
	}
	if r := waitRun(t, ts, second["id"]); r.Verdict != lab.VerdictNoLeak {
		t.Errorf("pr1674 verdict %s", r.Verdict)
	}
	code, _, pg := ts.get(t, "/runs/compare?a="+first["id"]+"&b="+second["id"])
	if code != 200 || bytes.Count(pg, []byte(`data-testid="run-title"`)) != 2 {
		t.Errorf("compare page: %d", code)
	}
}

func TestLabOff(t *testing.T) {
	ts := newTestServer(t, Config{})
	code, out := postJSON(t, ts.URL+"/api/runs", `{"workload":"checkpoint"}`)
	if code != http.StatusForbidden || !strings.Contains(out["error"], "-lab=false") {
		t.Errorf("POST /api/runs with the lab off: %d %v", code, out)
	}
	_, _, home := ts.get(t, "/")
	if !bytes.Contains(home, []byte(`data-testid="lab-off"`)) {
		t.Error("the dashboard does not say the lab is off")
	}
}
