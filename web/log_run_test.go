package web

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/lab"
)

// TestLogRunSection runs the test workload in the lab: the run page counts the
// run's own log with the SAMZA-2785 preset (the numbers grep finds in the
// stored log), and "Count this log" makes a full log report over the stored
// artifact without storing it again.
func TestLogRunSection(t *testing.T) {
	ts := labServer(t, "1ms", lab.Config{NoCapture: true})
	const cycles = 17
	code, out := postJSON(t, ts.URL+"/api/runs", `{"workload":"checkpoint","variant":"leaky","cycles":`+strconv.Itoa(cycles)+`,"tasks":1}`)
	if code != http.StatusAccepted {
		t.Fatalf("POST /api/runs: %d %v", code, out)
	}
	if r := waitRun(t, ts, out["id"]); r.Status != lab.StatusDone {
		t.Fatalf("run ended %+v", r)
	}
	doc, _ := logGetPage(t, ts, "/runs/"+out["id"])
	sec := doc.Find("[data-testid=run-log]")
	if sec.Length() != 1 || sec.Find("[data-testid=run-log-error]").Length() != 0 {
		t.Fatalf("run log section: %q", sec.Text())
	}
	// The anchor: grep on the stored log, downloaded as anyone would.
	href := sec.Find("a[href^='/a/']").AttrOr("href", "")
	resp, err := http.Get(ts.URL + href)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("download %s: %v", href, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	path := filepath.Join(t.TempDir(), "checkpoint.log")
	os.WriteFile(path, body, 0o644)
	starts := logGrepCount(t, logs.Literal("Starting the checkpoint SystemConsumer from oldest offset"), path)
	stops := logGrepCount(t, logs.Literal("Stopping system consumer"), path)
	if starts != cycles || stops != 0 {
		t.Fatalf("the stored log has %d starts and %d stops; the workload ran %d leaky cycles", starts, stops, cycles)
	}
	row := sec.Find("[data-testid=run-log-pair][data-pair='checkpoint consumers']")
	if row.AttrOr("data-starts", "") != strconv.FormatInt(starts, 10) || row.AttrOr("data-closes", "") != "0" || row.AttrOr("data-open", "") != strconv.FormatInt(starts, 10) {
		t.Errorf("run page: starts %s closes %s open %s; grep %d/%d", row.AttrOr("data-starts", ""), row.AttrOr("data-closes", ""), row.AttrOr("data-open", ""), starts, stops)
	}
	if got := sec.Find("[data-testid=run-log-preset]").Text(); got != "SAMZA-2785 checkpoint consumers" {
		t.Errorf("preset %q", got)
	}
	if got := sec.Find("[data-testid=run-log-lines]").Text(); got != strconv.FormatInt(logGrepLines(t, path), 10) {
		t.Errorf("lines %s", got)
	}

	// Count this log: a new log report over the stored artifact.
	_, chunks, _, _ := ts.db.Counts(t.Context())
	action := sec.Find("[data-testid=run-log-form]").AttrOr("action", "")
	resp, err = noRedirect.Post(ts.URL+action, "application/x-www-form-urlencoded", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/r/") {
		t.Fatalf("POST %s: %d to %q", action, resp.StatusCode, loc)
	}
	if _, after, _, _ := ts.db.Counts(t.Context()); after != chunks {
		t.Errorf("the log was stored again: %d chunks, were %d", after, chunks)
	}
	rep, _ := logGetPage(t, ts, loc)
	pair := rep.Find("[data-testid=log-pair][data-pair='checkpoint consumers']")
	if pair.AttrOr("data-starts", "") != strconv.FormatInt(starts, 10) || pair.AttrOr("data-open", "") != strconv.FormatInt(starts, 10) {
		t.Errorf("log report: starts %s open %s; grep %d", pair.AttrOr("data-starts", ""), pair.AttrOr("data-open", ""), starts)
	}
	if !strings.Contains(rep.Find("[data-testid=report-label]").Text(), "log of run "+out["id"]) {
		t.Errorf("label %q", rep.Find("[data-testid=report-label]").Text())
	}
	js, _ := logGetJSON(t, ts, strings.Replace(loc, "/r/", "/api/reports/", 1))
	if js.Analysis.Params.Preset != "samza-2785" || !js.Analysis.Own || len(js.Artifacts) != 1 {
		t.Errorf("the report's own parameters %+v", js.Analysis.Params)
	}
	// A run that stored no log has none to count.
	if code, _ := postJSON(t, ts.URL+"/runs/nosuchrun0000000000000000/log", ""); code != http.StatusNotFound {
		t.Errorf("POST for an unknown run: %d", code)
	}
}
