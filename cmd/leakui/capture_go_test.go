package main

import (
	"bytes"
	"context"
	"expvar"
	"net/http"
	"net/http/httptest"
	httppprof "net/http/pprof"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze/capture"
)

// pprofServer serves this test process's own net/http/pprof endpoint, with
// expvar's /debug/vars when vars is set.
func pprofServer(t *testing.T, vars bool) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", httppprof.Index)
	if vars {
		mux.Handle("/debug/vars", expvar.Handler())
	}
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts
}

// TestCaptureGo runs `leakui capture go URL -o FILE -every 50ms -count 3` against
// a real pprof endpoint (this test process's): three snapshots of heap,
// goroutine and memory statistics, time-stamped in the manifest in order; the
// goroutineleak profile this build does not serve is recorded as not served and
// the rest still taken; without expvar the memory statistics come from
// heap?debug=1. The bundle uploads to a real server as one report.
func TestCaptureGo(t *testing.T) {
	for _, vars := range []bool{true, false} {
		ts := pprofServer(t, vars)
		out := filepath.Join(t.TempDir(), "go.tar.gz")
		var stdout, stderr bytes.Buffer
		// Flags after the URL, as the usage writes them.
		code := run(context.Background(), []string{"capture", "go", strings.TrimPrefix(ts.URL, "http://"), "-o", out, "-every", "50ms", "-count", "3"},
			stdio{strings.NewReader(""), &stdout, &stderr})
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		for _, want := range []string{"[1/12] snapshot 1: heap", "[12/12] snapshot 3: memstats", "snapshot 1: goroutineleak FAILED", "not served"} {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("progress lacks %q:\n%s", want, stderr.String())
			}
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		c, err := capture.ReadCapture(f, 0, capture.Limits{}, nil)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		m := c.Manifest
		if m.Kind != capture.KindGo || m.Target.URL != ts.URL+"/debug/pprof/" || len(m.Steps) != 12 || m.Snapshots() != 3 {
			t.Fatalf("manifest %+v", m)
		}
		for i, s := range m.Steps[1:] {
			if s.Started.Before(m.Steps[i].Started) {
				t.Errorf("step %d started before the one before it", i+2)
			}
		}
		if m.Steps[4].Started.Sub(m.Steps[0].Started) < 50e6 {
			t.Errorf("the second snapshot started %s after the first, not -every 50ms", m.Steps[4].Started.Sub(m.Steps[0].Started))
		}
		for _, s := range c.Go.Snapshots {
			if s.Goroutines <= 0 || s.HeapInuse < 0 || s.Leaked != -1 || s.MemStats == nil || s.MemStats.HeapSys <= 0 {
				t.Errorf("vars %v, snapshot %d: %+v", vars, s.Number, s)
			}
		}
		if st, _ := m.Step(capture.StepMemStats, 1); vars != strings.Contains(st.Command, "/debug/vars") {
			t.Errorf("vars %v: memory statistics from %q", vars, st.Command)
		}
		if vars {
			s := startServer(t, t.TempDir())
			up, doc, md, page := uploadCaptures(t, s, out)
			if up.Verdict == "" || doc.Kind != "capture" || !strings.Contains(md, "| 3 |") || page.Find("[data-testid=capture-go] [data-testid=capture-row]").Length() != 3 {
				t.Errorf("uploaded: verdict %q, kind %q, %d rows:\n%s", up.Verdict, doc.Kind, page.Find("[data-testid=capture-row]").Length(), md)
			}
		}
	}
}

// TestCaptureUsage: the capture commands' mistakes are usage errors (exit 2),
// and a process that is not there fails without writing a bundle.
func TestCaptureUsage(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.tar.gz")
	for _, args := range [][]string{
		{"capture"}, {"capture", "ruby", "1"}, {"capture", "jvm", "1"}, {"capture", "jvm", "abc", "-o", out},
		{"capture", "go", "-o", out}, {"capture", "go", "ftp://x", "-o", out}, {"capture", "go", "127.0.0.1:1", "-o", out, "-count", "0"},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), args, stdio{strings.NewReader(""), &bytes.Buffer{}, &stderr}); code != 2 {
			t.Errorf("%q: exit %d, want 2: %s", args, code, stderr.String())
		}
	}
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"capture", "jvm", "999999999", "-o", out}, stdio{strings.NewReader(""), &bytes.Buffer{}, &stderr}); code != 1 || !strings.Contains(stderr.String(), "no process 999999999") {
		t.Errorf("no such process: exit %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed capture wrote a bundle")
	}
}

// TestCaptureJVMWithoutJcmd: on a host without jcmd, the /proc steps are taken
// and every jcmd step is recorded as failed with what to do, so the bundle
// still says what the resident set was.
func TestCaptureJVMWithoutJcmd(t *testing.T) {
	out := filepath.Join(t.TempDir(), "self.tar.gz")
	var stderr bytes.Buffer
	// This test process stands in for the JVM: /proc has it, jcmd is not there.
	code := run(context.Background(), []string{"capture", "jvm", strconv.Itoa(os.Getpid()), "-jcmd", filepath.Join(t.TempDir(), "jcmd"), "-o", out},
		stdio{strings.NewReader(""), &bytes.Buffer{}, &stderr})
	if code != 0 || strings.Count(stderr.String(), "FAILED") != 6 || !strings.Contains(stderr.String(), "no jcmd here") {
		t.Fatalf("exit %d (%d bytes on stderr):\n%s", code, stderr.Len(), stderr.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := capture.ReadCapture(f, 0, capture.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.JVM.Status == nil || c.JVM.Status.VmRSS <= 0 || c.JVM.Rollup == nil || len(c.Manifest.Failed()) != 6 {
		t.Errorf("status %+v, %d failed steps", c.JVM.Status, len(c.Manifest.Failed()))
	}
}
