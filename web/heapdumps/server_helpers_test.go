package heapdumps_test

import (
	"encoding/json"
	"testing"

	"github.com/leakui/leakui/web"
	"github.com/leakui/leakui/web/background"
	"github.com/leakui/leakui/web/heapdumps"
	"github.com/leakui/leakui/web/internal/webtest"
)

// The heap dump tests that go through the whole server: the web root's, on
// a real SQLite store (webtest) and the real JDK's dumps.

// newTestServer starts the web root's server with cfg (its store, spool
// directory and, unless set, job runner made by webtest).
func newTestServer(t *testing.T, cfg web.Config) *webtest.Server {
	t.Helper()
	ts, _ := webtest.Start(t, func(e webtest.Env) (*web.Server, error) {
		cfg.Store, cfg.TempDir = e.DB, e.TempDir
		if cfg.Jobs == nil {
			cfg.Jobs = e.Jobs
		}
		return web.NewServer(cfg)
	})
	return ts
}

// waitAnalysis is webtest.WaitAnalysis of a heap dump's analysis.
func waitAnalysis(t *testing.T, ts *webtest.Server, id string) heapdumps.JobState {
	t.Helper()
	return webtest.WaitAnalysis[heapdumps.JobState](t, ts, id)
}

// analysisDoc is the part of a report's JSON that tells its analysis's state.
type analysisDoc = webtest.Analysis[heapdumps.JobState]

// reportAnalysis is webtest.ReportAnalysis of a heap dump's report.
func reportAnalysis(t *testing.T, ts *webtest.Server, id string) analysisDoc {
	t.Helper()
	return webtest.ReportAnalysis[heapdumps.JobState](t, ts, id)
}

// summaryLine is a heap dump report's one-line summary as the dashboard
// lists it.
func summaryLine(raw json.RawMessage) string {
	return heapdumps.SummaryLine(raw, background.ParseFailedReason)
}
