package web

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"testing"

	"github.com/leakui/leakui/lab"
)

// TestRunMarkdownAndCaptureNames: /runs/{id}.md says a running run's status, and
// once the run has its report it is the report's Markdown; the captures are
// named by run, kind and step.
func TestRunMarkdownAndCaptureNames(t *testing.T) {
	ts := labServer(t, "30ms", lab.Config{Snapshots: 3})
	code, out := postJSON(t, ts.URL+"/api/runs", `{"workload":"checkpoint","variant":"leaky","mode":"active","cycles":10,"tasks":1}`)
	if code != http.StatusAccepted {
		t.Fatalf("POST /api/runs: %d %v", code, out)
	}
	id := out["id"]
	// While it runs (or, on a slow machine, already ended) the summary names the run.
	code, ct, md := ts.get(t, "/runs/"+id+".md")
	if code != 200 || ct != "text/markdown; charset=utf-8" || !bytes.Contains(md, []byte("leakui run: SAMZA-2785, leaky: checkpoint storm leaky/active")) {
		t.Errorf("/runs/%s.md while running: %d %s\n%s", id, code, ct, md)
	}
	r := waitRun(t, ts, id)
	code, _, md = ts.get(t, "/runs/"+id+".md")
	_, _, reportMD := ts.get(t, r.ReportURL+".md")
	if code != 200 || !bytes.Equal(md, reportMD) || !bytes.Contains(md, []byte("verdict: **leak**")) {
		t.Errorf("/runs/%s.md: %d\n%s\nwant the report's:\n%s", id, code, md, reportMD)
	}
	// The dashboard lists the run's report beside uploads, and alone with source=run.
	for _, path := range []string{"/", "/?source=run", "/?q=leak"} {
		urls, _, _, _ := dashboardList(t, ts, path)
		if len(urls) != 1 || urls[0] != r.ReportURL {
			t.Errorf("%s lists %v; want the run's report %s", path, urls, r.ReportURL)
		}
	}
	if code, _, _ := ts.get(t, "/runs/aaaaaaaaaaaaaaaaaaaaaaaaaa.md"); code != 404 {
		t.Errorf("unknown run's Markdown: %d", code)
	}
	arts, err := ts.db.RunArtifacts(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile(`^checkpoint-leaky-` + id[:6] + `-(heap|goroutine|goroutineleak)-step\d{3}\.pb\.gz$`)
	captures := 0
	for _, a := range arts {
		if a.Role == "log" {
			continue
		}
		captures++
		if !named.MatchString(a.Name) {
			t.Errorf("capture %q is not named by run, kind and step", a.Name)
		}
	}
	if captures < 2 {
		t.Errorf("%d captures", captures)
	}
}
