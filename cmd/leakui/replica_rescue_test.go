package main

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/hostile"
	"github.com/leakui/leakui/internal/pgtest"
)

// analysisState is the part of a heap dump report's JSON that says where
// its analysis stands.
type analysisState struct {
	Status   string `json:"status"`
	Progress *struct {
		Stage     string `json:"stage"`
		Elsewhere bool   `json:"elsewhere"`
	} `json:"progress"`
	Analysis *struct {
		Objects int `json:"objects"`
	} `json:"analysis"`
}

// readAnalysis reads a report's analysis state from s, quickly: the test
// polls it to catch the analysis running.
func readAnalysis(t *testing.T, client *http.Client, s *server, id string) analysisState {
	t.Helper()
	resp, err := client.Get(s.base + "/api/reports/" + id)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var st analysisState
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &st) != nil {
		t.Fatalf("GET /api/reports/%s: %d %.300s", id, resp.StatusCode, b)
	}
	return st
}

// TestHeapDumpAnalysisFinishesOnAnotherReplica runs two real `leakui serve`
// processes on one PostgreSQL database, with a rescue time of 2 s
// (-job-rescue-after). A heap dump uploaded to A (B held with SIGSTOP, so
// that A's worker takes the job) is analyzed by A; A is killed with SIGKILL
// while its analysis runs, and B — let go again — finishes it once the job
// system's leader (B, after A's leadership lapses) rescues the job whose
// heartbeat stopped: the report is done, read through B, with every object
// of the dump. A dump of a 500,000-object chain, built in Go, takes A long
// enough (hundreds of milliseconds) to be caught running.
func TestHeapDumpAnalysisFinishesOnAnotherReplica(t *testing.T) {
	dsn := pgtest.DSN(t)
	const objects = 500_000
	dump := filepath.Join(t.TempDir(), "chain.hprof")
	if err := hostile.WriteHprof(dump, func(w io.Writer) error { return hostile.ChainDump(w, objects, false, false) }); err != nil {
		t.Fatal(err)
	}
	a := startServer(t, t.TempDir(), "-db", dsn, "-job-rescue-after", "2s", "-lab=false")
	b := startServer(t, t.TempDir(), "-db", dsn, "-job-rescue-after", "2s", "-lab=false")

	if err := b.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := true
	defer func() {
		if stopped {
			b.cmd.Process.Signal(syscall.SIGCONT)
		}
	}()
	status, link := uploadFile(t, a.base, dump)
	id, ok := strings.CutPrefix(link, "/r/")
	if status != http.StatusAccepted || !ok {
		t.Fatalf("the heap dump's upload on A: %d %q\n%s", status, link, a.log.String())
	}
	client := &http.Client{Timeout: 5 * time.Second}
	for deadline := time.Now().Add(30 * time.Second); ; {
		st := readAnalysis(t, client, a, id)
		if st.Status != "analyzing" {
			t.Fatalf("A's analysis ended (%s) before it was caught running: make the dump larger", st.Status)
		}
		if st.Progress != nil && st.Progress.Stage != "" && !st.Progress.Elsewhere {
			a.kill()
			t.Logf("A killed at stage %q", st.Progress.Stage)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("A never ran the analysis\n%s", a.log.String())
		}
		time.Sleep(time.Millisecond)
	}
	if err := b.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	stopped = false

	begun := time.Now()
	var st analysisState
	for deadline := begun.Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if st = readAnalysis(t, client, b, id); st.Status != "analyzing" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("B did not finish the analysis within 90 s of A's death: %+v\n%s", st, b.log.String())
		}
	}
	t.Logf("B finished the analysis %v after A's death", time.Since(begun).Round(100*time.Millisecond))
	if st.Analysis == nil || st.Analysis.Objects < objects {
		t.Errorf("the report read through B: %+v, want done with at least %d objects", st, objects)
	}
}
