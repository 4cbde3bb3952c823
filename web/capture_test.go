package web

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	webbundles "github.com/leakui/leakui/web/bundles"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/capture"
	"github.com/leakui/leakui/internal/hostile/bundle"
	"github.com/leakui/leakui/internal/markdown"
)

// captureReportJSON is the part of a capture report's JSON the tests read.
type captureReportJSON struct {
	Kind     string `json:"kind"`
	Summary  json.RawMessage
	Analysis struct {
		CaptureKind               string `json:"capture_kind"`
		Verdict                   string `json:"verdict"`
		Cause                     string `json:"cause"`
		Sentence                  string `json:"sentence"`
		UntrackedNativeDeltaBytes *int64 `json:"untracked_native_delta_bytes"`
		InflatersAlive            *int64 `json:"inflaters_alive"`
		Bundles                   []capture.Manifest
	} `json:"analysis"`
}

// TestCaptureReport uploads the two bundles leakui capture jvm took of a real
// JVM before and after 20,000 GZIPInputStreams were left open: one report whose
// page, JSON, Markdown and dashboard line say what package analyze/capture says
// of the same files, the bundles ordered by when they were taken.
func TestCaptureReport(t *testing.T) {
	ts := newTestServer(t, Config{})
	before, after := fixture(t, "capture", "jvm-unclosed-gzip-before.tar.gz"), fixture(t, "capture", "jvm-unclosed-gzip-after.tar.gz")
	var caps []*capture.Capture
	for _, f := range []file{before, after} {
		c, err := capture.ReadCapture(bytes.NewReader(f.data), 0, capture.Limits{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		caps = append(caps, c)
	}
	want, err := capture.Analyze(caps)
	if err != nil {
		t.Fatal(err)
	}
	up := ts.mustUpload(t, nil, after, before)
	if up.Verdict != "leak" || len(up.Artifacts) != 2 || up.Artifacts[0].Kind != string(analyze.KindCapture) || up.Artifacts[0].Format != "leakui capture bundle (jvm)" {
		t.Fatalf("upload answer %+v", up)
	}
	doc := jvmGetDoc[json.RawMessage](t, ts, "/api/reports/"+up.ReportID)
	var rep captureReportJSON
	_, _, body := ts.get(t, "/api/reports/"+up.ReportID)
	if err := json.Unmarshal(body, &rep); err != nil {
		t.Fatal(err)
	}
	a := rep.Analysis
	if doc.Kind != webbundles.ReportKind || a.CaptureKind != "jvm" || a.Verdict != "leak" || a.Cause != want.Verdict.Cause || a.Sentence != want.Verdict.Sentence ||
		a.UntrackedNativeDeltaBytes == nil || *a.UntrackedNativeDeltaBytes != want.JVM.UntrackedNativeDeltaBytes || a.InflatersAlive == nil || *a.InflatersAlive != 20000 {
		t.Fatalf("report %s: %+v; analyze/capture says %q", doc.Kind, a, want.Verdict.Sentence)
	}
	if len(a.Bundles) != 2 || !a.Bundles[0].Started.Before(a.Bundles[1].Started) {
		t.Errorf("bundles not oldest first: %+v", a.Bundles)
	}

	pg, _ := jvmGetPage(t, ts, up.ReportURL)
	if got := strings.TrimSpace(pg.Find("[data-testid=headline]").Text()); got != want.Verdict.Sentence {
		t.Errorf("page verdict %q", got)
	}
	if names := pg.Find("[data-testid=files] td").First().Text(); !strings.Contains(names, "before") {
		t.Errorf("the page lists %q first, not the capture before", names)
	}
	if got := pg.Find("[data-testid=capture-row]").Length(); got != 2 {
		t.Errorf("%d capture rows", got)
	}
	if got := strings.TrimSpace(pg.Find("[data-testid=capture-row]").Last().Find("[data-testid=inflaters]").Text()); got != "20,000" {
		t.Errorf("the last capture's Inflaters %q", got)
	}
	if got := pg.Find("[data-testid=capture-step]").Length(); got != 2*len(capture.JVMSteps) {
		t.Errorf("%d steps listed", got)
	}
	if f := pg.Find("[data-testid=capture-formula]").Text(); !strings.Contains(f, analyze.FormatSignedValue(want.JVM.UntrackedNativeDeltaBytes, "bytes")) {
		t.Errorf("formula %q", f)
	}

	_, _, md := ts.get(t, up.ReportURL+".md")
	for _, s := range []string{"**" + markdown.Escape(want.Verdict.Sentence) + "**", "(`untracked_native_delta_bytes`): " + analyze.FormatSignedValue(want.JVM.UntrackedNativeDeltaBytes, "bytes"),
		"(`inflaters_alive`): 20,000"} {
		if !bytes.Contains(md, []byte(s)) {
			t.Errorf("Markdown lacks %q:\n%s", s, md)
		}
	}
	_, _, home := ts.get(t, "/")
	if line := "JVM capture of " + want.Target.String() + ", 2 bundles; untracked native " + analyze.FormatSignedValue(want.JVM.UntrackedNativeDeltaBytes, "bytes"); !bytes.Contains(home, []byte(line)) {
		t.Errorf("the dashboard lacks %q", line)
	}

	// One bundle alone is a report too, and says that a second one is needed.
	one := ts.mustUpload(t, nil, after)
	if one.Verdict != "no leak" {
		t.Errorf("one bundle: verdict %q", one.Verdict)
	}
	pg, _ = jvmGetPage(t, ts, one.ReportURL)
	if h := pg.Find("[data-testid=headline]").Text(); !strings.Contains(h, "Take another capture") || !strings.Contains(h, "20,000 java.util.zip.Inflater") {
		t.Errorf("one bundle's verdict %q", h)
	}
}

// TestCaptureUploadRefusals: hostile bundles through the upload API are refused
// with a clear 4xx and nothing stored; so are two bundles of two processes and a
// bundle beside a file of another kind.
func TestCaptureUploadRefusals(t *testing.T) {
	const maxDecompressed = 8 << 20
	after := fixture(t, "capture", "jvm-unclosed-gzip-after.tar.gz")
	var otherProcess bytes.Buffer
	w := capture.NewWriter(capture.KindJVM, capture.Target{Host: "another-host", PID: 7}, "test", captureTime)
	w.Add(capture.Step{Name: capture.StepProcStatus, Command: "/proc/7/status"}, []byte("Name:\tjava\nVmRSS:\t 4 kB\n"), nil)
	if err := w.Write(&otherProcess, captureTime); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		files  []file
		status int
		msg    string
	}{
		{"two processes", []file{after, {"other.tar.gz", otherProcess.Bytes()}}, 422, "bundles of one process compare"},
		{"a bundle and a histogram", []file{after, fixture(t, "jvm", "tda-jdk15-threaddump-with-class-histogram.log")}, 422, "upload files of one kind together"},
	}
	for _, h := range bundle.Cases(maxDecompressed) {
		cases = append(cases, struct {
			name   string
			files  []file
			status int
			msg    string
		}{h.Name, []file{{h.Name + ".tar.gz", h.Data}}, h.Status, h.Message})
	}
	ts := newTestServer(t, Config{MaxDecompressed: maxDecompressed})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, _, raw := ts.upload(t, tc.files...)
			if status != tc.status || !strings.Contains(raw, tc.msg) {
				t.Errorf("status %d %s; want %d containing %q", status, raw, tc.status, tc.msg)
			}
			if a, c, r, err := ts.db.Counts(t.Context()); err != nil || a+c+r != 0 {
				t.Errorf("a refused upload stored artifacts=%d chunks=%d reports=%d (%v)", a, c, r, err)
			}
		})
	}
}

// captureTime is when the tests' hand-made bundles were taken.
var captureTime = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
