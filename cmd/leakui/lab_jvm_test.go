package main

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/internal/testtool"
)

// TestLabJVMVariant runs the recovery workload's jvm variant through the lab: the
// verdict says the figures came from the JVM, and the JVM's jcmd outputs are
// stored as the run's artifacts, their kinds detected as leakui's JVM kinds, and
// shown with leakui's JVM views (see checkRunJVMViews).
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
	// The captures are named by run, role and the lab's own name:
	// recovery-jvm-<run>-jvm-nmt-before-step002.txt.
	names, urls := map[string]string{}, map[string]string{}
	for _, a := range doc.Artifacts {
		for _, out := range []string{"nmt-before", "nmt-after", "histo"} {
			if strings.Contains(a.Name, "-jvm-"+out+"-step") && strings.HasSuffix(a.Name, ".txt") {
				names[out], urls[out] = a.Name, a.URL
			}
		}
	}
	for name, marker := range map[string]string{
		"nmt-before": "Native Memory Tracking:", "nmt-after": "Native Memory Tracking:", "histo": "java.util.zip.Inflater",
	} {
		url, ok := urls[name]
		if !ok {
			t.Errorf("no artifact for %s among %+v", name, doc.Artifacts)
			continue
		}
		if b := s.download(t, url); !bytes.Contains(b, []byte(marker)) {
			t.Errorf("%s lacks %q", name, marker)
		}
	}
	html, err := goquery.NewDocumentFromReader(bytes.NewReader(s.download(t, "/runs/"+run.ID)))
	if err != nil {
		t.Fatal(err)
	}
	if files := html.Find("[data-testid=run-files]").Text(); !strings.Contains(files, names["histo"]) {
		t.Errorf("the run page's files do not list the JVM's class histogram %s: %q", names["histo"], files)
	}
	if callout := html.Find("[data-testid=run-callout]").Text(); !strings.Contains(callout, "These figures came from a real JVM, not the Go model") {
		t.Errorf("the run page does not say its figures came from the JVM: %q", callout)
	}
	checkRunJVMViews(t, s, run, names, urls)
}

// runJVMDoc is the JVM part of a jvm run's report JSON.
type runJVMDoc struct {
	Analysis struct {
		JVM struct {
			NMTFiles      []string    `json:"nmt_files"`
			NMTComparison jvm.NMTDiff `json:"nmt_comparison"`
			NMTReportURL  string      `json:"nmt_report_url"`
			Histogram     struct {
				Classes           int64 `json:"classes"`
				TotalInstances    int64 `json:"total_instances"`
				TotalBytes        int64 `json:"total_bytes"`
				InflaterInstances int64 `json:"inflater_instances"`
			} `json:"histogram"`
			HistogramReportURL string `json:"histogram_report_url"`
		} `json:"jvm"`
	} `json:"analysis"`
}

// checkRunJVMViews: the run's report, page and Markdown show the jcmd outputs
// with the numbers package analyze/jvm reads from the downloaded files (the
// native memory summaries first → last, the class histogram, whose
// java.util.zip.Inflater instances are the streams left open), and link to JVM
// reports made of the same files, whose JSON says the same.
func checkRunJVMViews(t *testing.T, s *server, run runState, names, urls map[string]string) {
	t.Helper()
	before, err := jvm.ParseNMTs(bytes.NewReader(s.download(t, urls["nmt-before"])))
	if err != nil || len(before) != 1 {
		t.Fatalf("nmt-before: %v", err)
	}
	after, err := jvm.ParseNMTs(bytes.NewReader(s.download(t, urls["nmt-after"])))
	if err != nil || len(after) != 1 {
		t.Fatalf("nmt-after: %v", err)
	}
	d := jvm.DiffNMT(before[0], after[0])
	hs, err := jvm.ParseHistograms(bytes.NewReader(s.download(t, urls["histo"])))
	if err != nil || len(hs) != 1 {
		t.Fatalf("histogram: %v", err)
	}
	h := hs[0]
	var inflaters int64
	for _, c := range h.Classes {
		if c.Name == "java.util.zip.Inflater" {
			inflaters = c.Instances
		}
	}
	if inflaters != run.Counters["jvm_streams"] {
		t.Errorf("the histogram holds %d Inflaters, the run left %d streams open", inflaters, run.Counters["jvm_streams"])
	}

	var doc runJVMDoc
	s.getJSON(t, strings.Replace(run.ReportURL, "/r/", "/api/reports/", 1), &doc)
	j := doc.Analysis.JVM
	if j.NMTComparison.BaseTotalCommitted != d.BaseTotalCommitted || j.NMTComparison.TotalCommitted != d.TotalCommitted ||
		j.NMTComparison.TotalCommittedDelta != d.TotalCommittedDelta || j.NMTComparison.NonHeapCommittedDelta != d.NonHeapCommittedDelta ||
		strings.Join(j.NMTFiles, ",") != names["nmt-before"]+","+names["nmt-after"] {
		t.Errorf("report JSON's native memory %+v (files %v), analyze/jvm says %+v", j.NMTComparison, j.NMTFiles, *d)
	}
	if hj := j.Histogram; hj.Classes != int64(len(h.Classes)) || hj.TotalInstances != h.TotalInstances || hj.TotalBytes != h.TotalBytes || hj.InflaterInstances != inflaters {
		t.Errorf("report JSON's histogram %+v, analyze/jvm says %d classes, %d instances, %d bytes, %d Inflaters", hj, len(h.Classes), h.TotalInstances, h.TotalBytes, inflaters)
	}

	// The page, with the JVM report pages' own figures and tables.
	html, err := goquery.NewDocumentFromReader(bytes.NewReader(s.download(t, "/runs/"+run.ID)))
	if err != nil {
		t.Fatal(err)
	}
	text := func(sel string) string { return strings.TrimSpace(html.Find(sel).First().Text()) }
	for sel, want := range map[string]string{
		"[data-testid=run-jvm-nmt] [data-testid=change-committed]":                         analyze.FormatSignedValue(d.TotalCommittedDelta, "bytes"),
		"[data-testid=run-jvm-nmt] [data-testid=change-non-heap]":                          analyze.FormatSignedValue(d.NonHeapCommittedDelta, "bytes"),
		"[data-testid=run-jvm-histogram] [data-testid=total-instances]":                    analyze.FormatCount(h.TotalInstances),
		"[data-testid=run-jvm-histogram] [data-testid=total-bytes]":                        analyze.FormatBytes(h.TotalBytes),
		"[data-testid=run-jvm-histogram] [data-testid=inflater-instances]":                 analyze.FormatCount(inflaters),
		"[data-testid=run-jvm-histogram] [data-testid=class-row] [data-testid=class-name]": h.Ranked(jvm.ByBytes)[0].Name,
	} {
		if got := text(sel); got != want {
			t.Errorf("run page %s: %q, want %q", sel, got, want)
		}
	}
	if got, _ := html.Find("[data-testid=run-jvm-histogram] [data-testid=class-row]").First().Attr("data-bytes"); got != strconv.FormatInt(h.Ranked(jvm.ByBytes)[0].Bytes, 10) {
		t.Errorf("run page: first class row has %s bytes", got)
	}
	nmtLink, _ := html.Find("[data-testid=run-jvm-nmt] [data-testid=run-jvm-report]").Attr("href")
	histoLink, _ := html.Find("[data-testid=run-jvm-histogram] [data-testid=run-jvm-report]").Attr("href")
	if nmtLink == "" || nmtLink != j.NMTReportURL || histoLink == "" || histoLink != j.HistogramReportURL {
		t.Fatalf("links to the JVM reports: page %q %q, JSON %q %q", nmtLink, histoLink, j.NMTReportURL, j.HistogramReportURL)
	}

	// The JVM reports themselves, as an upload of the same files makes them.
	var nmtRep struct {
		Kind     string `json:"kind"`
		Analysis struct {
			Comparison jvm.NMTDiff `json:"comparison"`
		} `json:"analysis"`
	}
	s.getJSON(t, strings.Replace(nmtLink, "/r/", "/api/reports/", 1), &nmtRep)
	if nmtRep.Kind != "jvm-nmt-diff" || nmtRep.Analysis.Comparison.TotalCommittedDelta != d.TotalCommittedDelta ||
		nmtRep.Analysis.Comparison.NonHeapCommittedDelta != d.NonHeapCommittedDelta {
		t.Errorf("native memory report: %s %+v, analyze/jvm says %+v", nmtRep.Kind, nmtRep.Analysis.Comparison, *d)
	}
	var histoRep struct {
		Kind     string `json:"kind"`
		Analysis struct {
			TotalInstances int64 `json:"total_instances"`
			TotalBytes     int64 `json:"total_bytes"`
			ClassCount     int   `json:"class_count"`
		} `json:"analysis"`
	}
	s.getJSON(t, strings.Replace(histoLink, "/r/", "/api/reports/", 1), &histoRep)
	if histoRep.Kind != "jvm-histogram" || histoRep.Analysis.TotalInstances != h.TotalInstances || histoRep.Analysis.TotalBytes != h.TotalBytes ||
		histoRep.Analysis.ClassCount != len(h.Classes) {
		t.Errorf("histogram report: %s %+v", histoRep.Kind, histoRep.Analysis)
	}
	if page := s.download(t, nmtLink); !bytes.Contains(page, []byte(`data-testid="nmt-changes"`)) {
		t.Error("the native memory report's page has no table of changes")
	}

	md := string(s.download(t, run.ReportURL+".md"))
	for _, want := range []string{
		"- JVM native memory (jcmd VM.native_memory summary, " + names["nmt-before"] + " → " + names["nmt-after"] + "): committed " +
			analyze.FormatBytes(d.BaseTotalCommitted) + " → " + analyze.FormatBytes(d.TotalCommitted),
		"`java.util.zip.Inflater` " + analyze.FormatCount(inflaters) + " instances; report ",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}
