package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/capture"
	"github.com/leakui/leakui/internal/testtool"
)

// TestLabJVMVariant runs the recovery workload's jvm variant through the lab: the
// verdict says the figures came from the JVM, and the two bundles `leakui capture
// jvm` took of the JVM, before its streams and with them open, are stored as the
// run's artifacts, detected as capture bundles, and read as an upload of the same
// bundles reads (see checkRunCaptureViews).
func TestLabJVMVariant(t *testing.T) {
	testtool.Require(t, "jdk", "javac")
	testtool.Require(t, "jdk", "jcmd")
	s := startServer(t, t.TempDir())
	code, out := s.post(t, "/api/runs", `{"workload":"recovery","variant":"jvm","partitions":1,"segments":10,"batches":500}`)
	if code != http.StatusAccepted {
		t.Fatalf("POST /api/runs: %d %v", code, out)
	}
	run := s.waitRun(t, out["id"], 5*time.Minute)
	if run.Status != "done" || run.Verdict != "leak" || !strings.Contains(strings.Join(run.Details, " "), "These figures came from the JVM") ||
		run.Counters["jvm_streams"] == 0 || run.Counters["jvm_bytes_per_open_stream"] < 4096 {
		t.Fatalf("jvm run: %+v", run)
	}
	var doc reportDoc
	s.getJSON(t, strings.Replace(run.ReportURL, "/r/", "/api/reports/", 1), &doc)
	// The captures are named by run, role and the lab's own name:
	// recovery-jvm-<run>-jvm-capture-before-step002.tar.gz.
	var names, urls []string
	for _, phase := range []string{"before", "after"} {
		for _, a := range doc.Artifacts {
			if strings.Contains(a.Name, "-jvm-capture-"+phase+"-step") && strings.HasSuffix(a.Name, ".tar.gz") {
				if a.Kind != string(analyze.KindCapture) {
					t.Errorf("%s was detected as %q", a.Name, a.Kind)
				}
				names, urls = append(names, a.Name), append(urls, a.URL)
			}
		}
	}
	if len(names) != 2 {
		t.Fatalf("want the two capture bundles among %+v", doc.Artifacts)
	}
	html, err := goquery.NewDocumentFromReader(bytes.NewReader(s.download(t, "/runs/"+run.ID)))
	if err != nil {
		t.Fatal(err)
	}
	if files := html.Find("[data-testid=run-files]").Text(); !strings.Contains(files, names[1]) {
		t.Errorf("the run page's files do not list the capture %s: %q", names[1], files)
	}
	if callout := html.Find("[data-testid=run-callout]").Text(); !strings.Contains(callout, "These figures came from a real JVM, not the Go model") {
		t.Errorf("the run page does not say its figures came from the JVM: %q", callout)
	}
	checkRunCaptureViews(t, s, run, names, urls)
}

// runCaptureDoc is the capture part of a jvm run's report JSON.
type runCaptureDoc struct {
	Analysis struct {
		JVM struct {
			Capture struct {
				Files                     []string `json:"files"`
				Verdict                   string   `json:"verdict"`
				Cause                     string   `json:"cause"`
				Sentence                  string   `json:"sentence"`
				UntrackedNativeDeltaBytes *int64   `json:"untracked_native_delta_bytes"`
				InflatersAlive            *int64   `json:"inflaters_alive"`
				ReportURL                 string   `json:"report_url"`
			} `json:"capture"`
		} `json:"jvm"`
	} `json:"analysis"`
}

// checkRunCaptureViews: the run's report, page and Markdown say what package
// analyze/capture reads from the downloaded bundles (the untracked native
// growth, the java.util.zip.Inflater alive, one per stream left open), and link
// to the capture report made of the same files, whose JSON says the same as an
// upload of the two bundles.
func checkRunCaptureViews(t *testing.T, s *server, run runState, names, urls []string) {
	t.Helper()
	var caps []*capture.Capture
	var paths []string
	for i, u := range urls {
		b := s.download(t, u)
		c, err := capture.ReadCapture(bytes.NewReader(b), 0, capture.Limits{}, nil)
		if err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		caps = append(caps, c)
		p := filepath.Join(t.TempDir(), names[i])
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	want, err := capture.Analyze(caps)
	if err != nil {
		t.Fatal(err)
	}
	if want.JVM.InflatersDelta != run.Counters["jvm_streams"] || !want.JVM.Complete || want.Verdict.Cause != "untracked-inflaters" {
		t.Errorf("the bundles: %d more Inflaters (the run left %d streams open), complete %v, cause %q: %s",
			want.JVM.InflatersDelta, run.Counters["jvm_streams"], want.JVM.Complete, want.Verdict.Cause, want.Verdict.Sentence)
	}
	t.Logf("%d streams: untracked native %+d B (%.0f B per stream): %s", run.Counters["jvm_streams"], want.JVM.UntrackedNativeDeltaBytes,
		float64(want.JVM.UntrackedNativeDeltaBytes)/float64(run.Counters["jvm_streams"]), want.Verdict.Sentence)

	var doc runCaptureDoc
	s.getJSON(t, strings.Replace(run.ReportURL, "/r/", "/api/reports/", 1), &doc)
	c := doc.Analysis.JVM.Capture
	if c.Sentence != want.Verdict.Sentence || c.Cause != want.Verdict.Cause || c.UntrackedNativeDeltaBytes == nil ||
		*c.UntrackedNativeDeltaBytes != want.JVM.UntrackedNativeDeltaBytes || c.InflatersAlive == nil || *c.InflatersAlive != want.JVM.InflatersAlive ||
		strings.Join(c.Files, ",") != strings.Join(names, ",") {
		t.Errorf("the run report's capture %+v; analyze/capture says %q", c, want.Verdict.Sentence)
	}

	html, err := goquery.NewDocumentFromReader(bytes.NewReader(s.download(t, "/runs/"+run.ID)))
	if err != nil {
		t.Fatal(err)
	}
	part := html.Find("[data-testid=run-jvm-capture]")
	if got := strings.TrimSpace(part.Find("[data-testid=run-jvm-headline]").Text()); got != want.Verdict.Sentence {
		t.Errorf("run page's capture verdict %q, want %q", got, want.Verdict.Sentence)
	}
	for sel, v := range map[string]string{
		"[data-testid=untracked-native]": analyze.FormatSignedValue(want.JVM.UntrackedNativeDeltaBytes, "bytes"),
		"[data-testid=inflaters-alive]":  analyze.FormatCount(want.JVM.InflatersAlive),
	} {
		if got := strings.TrimSpace(part.Find(sel).First().Text()); got != v {
			t.Errorf("run page %s: %q, want %q", sel, got, v)
		}
	}
	link, _ := part.Find("[data-testid=run-jvm-report]").Attr("href")
	if link == "" || link != c.ReportURL {
		t.Fatalf("link to the capture report: page %q, JSON %q", link, c.ReportURL)
	}

	// The capture report the run made, and an upload of the same two bundles,
	// say the same.
	var fromRun captureDoc
	s.getJSON(t, strings.Replace(link, "/r/", "/api/reports/", 1), &fromRun)
	_, uploaded, _, _ := uploadCaptures(t, s, paths...)
	for _, d := range []captureDoc{fromRun, uploaded} {
		if d.Kind != "capture" || d.Analysis.Sentence != want.Verdict.Sentence || d.Analysis.UntrackedNativeDeltaBytes == nil ||
			*d.Analysis.UntrackedNativeDeltaBytes != want.JVM.UntrackedNativeDeltaBytes {
			t.Errorf("capture report %s %+v; analyze/capture says %q", d.Kind, d.Analysis, want.Verdict.Sentence)
		}
	}

	md := string(s.download(t, run.ReportURL+".md"))
	for _, w := range []string{"- JVM captured with leakui capture jvm (" + names[0] + " → " + names[1] + "): ",
		"(`untracked_native_delta_bytes`): " + analyze.FormatSignedValue(want.JVM.UntrackedNativeDeltaBytes, "bytes"),
		"(`inflaters_alive`): " + analyze.FormatCount(want.JVM.InflatersAlive)} {
		if !strings.Contains(md, w) {
			t.Errorf("Markdown lacks %q:\n%s", w, md)
		}
	}
}
