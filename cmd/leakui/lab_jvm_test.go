package main

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/testtool"
)

// TestLabJVMVariant runs the recovery workload's jvm variant through the lab: the
// verdict says the figures came from the JVM, and the JVM's jcmd outputs are
// stored as the run's artifacts, their kinds detected as leakui's JVM kinds.
func TestLabJVMVariant(t *testing.T) {
	testtool.Require(t, "jdk", "javac")
	testtool.Require(t, "jdk", "jcmd")
	s := startServer(t, t.TempDir())
	code, out := s.post(t, "/api/runs", `{"workload":"recovery","variant":"jvm","partitions":1,"segments":2,"batches":200}`)
	if code != http.StatusAccepted {
		t.Fatalf("POST /api/runs: %d %v", code, out)
	}
	run := s.waitRun(t, out["id"], 3*time.Minute)
	if run.Status != "done" || run.Verdict != "leak" || !strings.Contains(run.Reason, "These figures came from the JVM.") ||
		run.Counters["jvm_streams"] == 0 || run.Counters["jvm_bytes_per_open_stream"] < 4096 {
		t.Fatalf("jvm run: %+v", run)
	}
	var doc reportDoc
	s.getJSON(t, strings.Replace(run.ReportURL, "/r/", "/api/reports/", 1), &doc)
	names := map[string]string{}
	for _, a := range doc.Artifacts {
		names[a.Name] = a.URL
	}
	// Captures are named by run, kind and step ("recovery-jvm-ab3d9f-jvm-histo-step002.txt").
	byKind := func(kind string) (string, bool) {
		for name, url := range names {
			if strings.Contains(name, "-"+kind+"-step") {
				return url, true
			}
		}
		return "", false
	}
	for name, marker := range map[string]string{
		"jvm-nmt-before": "Native Memory Tracking:", "jvm-nmt-after": "Native Memory Tracking:", "jvm-histo": "java.util.zip.Inflater",
	} {
		url, ok := byKind(name)
		if !ok {
			t.Errorf("no artifact %s among %v", name, names)
			continue
		}
		if b := s.download(t, url); !bytes.Contains(b, []byte(marker)) {
			t.Errorf("%s lacks %q", name, marker)
		}
	}
	page := s.download(t, "/runs/"+run.ID)
	histo, _ := byKind("jvm-histo")
	if histo == "" || !bytes.Contains(page, []byte(`href="`+histo)) || !bytes.Contains(page, []byte("These figures came from a real JVM, not the Go model")) {
		t.Error("the run page does not list the JVM's class histogram or say its figures came from the JVM")
	}
}
