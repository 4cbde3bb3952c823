package web

import (
	"net/http"
	"testing"
	"time"

	"github.com/leakui/leakui/lab"
)

// TestSilentRunKeepsItsLease runs a capture whose snapshots are a second apart
// under a lease of 200 ms, so the run records nothing for five leases at a
// time, while the sweeper interrupts expired runs every 100 ms. The server's
// heartbeat keeps the lease of its own run alive: the run ends done with all
// its snapshots and its report, not interrupted.
func TestSilentRunKeepsItsLease(t *testing.T) {
	target, _ := pprofTarget(t)
	ts := newTestServer(t, Config{Lab: &lab.Config{Lease: 200 * time.Millisecond}, RunsPerMinute: -1, Targets: lab.Targets{"api": target.URL}})
	code, out := postJSON(t, ts.URL+"/api/captures", `{"target":"api","what":"heap","interval":"1s","count":3}`)
	if code != http.StatusAccepted {
		t.Fatalf("%d %v", code, out)
	}
	r := waitRun(t, ts, out["id"])
	if r.Status != lab.StatusDone || r.Snapshots != 3 || r.ReportURL == "" {
		t.Fatalf("the silent capture ended %+v; want done with 3 snapshots and a report", r)
	}
}
