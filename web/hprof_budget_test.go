package web

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/web/background"
	"github.com/leakui/leakui/web/heapdumps"
	"github.com/leakui/leakui/web/internal/webtest"
	"github.com/leakui/leakui/web/page"
)

// The heap dump tests that stay in the web root: they hold the server's own
// memory budget (Server.budget), which no package outside the root reaches,
// and the heap dump helpers of the root's other tests, over webtest's.

// leakShapeDump is webtest.LeakShapeDump as the root's tests take a file.
func leakShapeDump(t *testing.T, gz bool, n, b int) file {
	t.Helper()
	f := webtest.LeakShapeDump(t, gz, n, b)
	return file{name: f.Name, data: f.Data}
}

// leakShapeRunText is webtest.LeakShapeRun as the root's tests take a file.
func leakShapeRunText(t testing.TB, n, b int) (file, *jvm.Histogram, []byte) {
	t.Helper()
	f, h, text := webtest.LeakShapeRun(t, n, b)
	return file{name: f.Name, data: f.Data}, h, text
}

// chainDump is webtest.ChainDump as the root's tests take a file.
func chainDump(t *testing.T, n int) file {
	t.Helper()
	f := webtest.ChainDump(t, n)
	return file{name: f.Name, data: f.Data}
}

// waitAnalysis is webtest.WaitAnalysis of a heap dump's analysis.
func (ts *testServer) waitAnalysis(t *testing.T, id string) heapdumps.JobState {
	t.Helper()
	return webtest.WaitAnalysis[heapdumps.JobState](t, ts.web(), id)
}

// analysisDoc is the part of a report's JSON that tells its analysis's state.
type analysisDoc = webtest.Analysis[heapdumps.JobState]

// reportAnalysis is webtest.ReportAnalysis of a heap dump's report.
func (ts *testServer) reportAnalysis(t *testing.T, id string) analysisDoc {
	t.Helper()
	return webtest.ReportAnalysis[heapdumps.JobState](t, ts.web(), id)
}

// mustUploadHeapDump is webtest's MustUploadHeapDump.
func (ts *testServer) mustUploadHeapDump(t *testing.T, f file) uploadResponse {
	t.Helper()
	return uploadResponse(ts.web().MustUploadHeapDump(t, webtest.File{Name: f.name, Data: f.data}))
}

// holdAnalyses keeps the process's one heap dump analysis slot until the test
// calls release (or ends), so that uploads stay queued.
func holdAnalyses(t *testing.T) (release func()) { return webtest.Hold(t, heapdumps.Analyses) }

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
	if _, err := ts.db.OpenDerived(t.Context(), up.ReportID, heapdumps.IndexName); err != nil {
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

// TestViewsWaitForTheBudget holds the server's whole memory budget, as
// analyses would: every view of a report answers 503 with Retry-After instead
// of allocating, and answers again once the budget is back.
func TestViewsWaitForTheBudget(t *testing.T) {
	ts := newTestServer(t, Config{})
	up := ts.mustUploadHeapDump(t, chainDump(t, 1000))
	id := up.ReportID
	views := []string{page.ReportURL(id), page.ReportURL(id) + ".md", page.ReportJSONURL(id), heapdumps.DomURL(id) + ".json", heapdumps.PathURL(id, 0)}
	held := ts.srv.budget.Limit()
	if err := ts.srv.budget.Charge(held); err != nil {
		t.Fatal(err)
	}
	for _, v := range views {
		req, _ := http.NewRequest("GET", ts.URL+v, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
			t.Errorf("%s with the budget held: %d, Retry-After %q", v, resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	}
	ts.srv.budget.Uncharge(held)
	for _, v := range views {
		if code, _, _ := ts.get(t, v); code != http.StatusOK {
			t.Errorf("%s: %d once the budget is back", v, code)
		}
	}
	if used := ts.srv.budget.Used(); used != 0 {
		t.Errorf("%d bytes still charged after the views", used)
	}
}
