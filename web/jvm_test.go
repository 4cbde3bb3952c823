package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/leakui/leakui/web/classhist"
	webjvm "github.com/leakui/leakui/web/jvm"

	"github.com/PuerkitoBio/goquery"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/greptest"
	"github.com/leakui/leakui/internal/jvmtext"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/snapshot"
)

// jvmDoc is the JSON twin of a JVM report, with the analysis decoded into A.
type jvmDoc[A any] struct {
	Kind      string          `json:"kind"`
	Artifacts []kind.Artifact `json:"artifacts"`
	Params    snapshot.Params `json:"params"`
	Analysis  A               `json:"analysis"`
}

func jvmGetDoc[A any](t *testing.T, ts *testServer, path string) jvmDoc[A] {
	t.Helper()
	code, _, body := ts.get(t, path)
	var doc jvmDoc[A]
	if code != 200 {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("GET %s: %v\n%s", path, err, body)
	}
	return doc
}

// jvmGetPage fetches an HTML page and parses it.
func jvmGetPage(t *testing.T, ts *testServer, path string) (*goquery.Document, []byte) {
	t.Helper()
	return ts.web().Page(t, path)
}

// jvmHistogramAnalysis is the documented shape of `leakui histo -json`, which the
// report's analysis follows.
type jvmHistogramAnalysis struct {
	TotalInstances int64       `json:"total_instances"`
	TotalBytes     int64       `json:"total_bytes"`
	HasTotal       bool        `json:"has_total"`
	ClassCount     int         `json:"class_count"`
	Order          string      `json:"order"`
	Classes        []jvm.Class `json:"classes"`
}

// TestJavaHistogramReport uploads the real histogram of the TDA fixture and checks
// page, JSON and Markdown against the file's own Total line (read with grep) and
// against the engine.
func TestJavaHistogramReport(t *testing.T) {
	ts := newTestServer(t, Config{})
	data, inst, byt := jvmTDAHistogram(t)
	rowCount := jvmGrepCount(t, `^ *[0-9]\+: \+[0-9]\+ \+[0-9]\+ `, fixtures.Path(t, "jvm", "tda-jdk15-threaddump-with-class-histogram.log"))
	want := jvmParseHistogram(t, data)
	up := ts.mustUpload(t, nil, file{"histo.txt.gz", gzipBytes(data)})
	if up.Artifacts[0].Kind != string(analyze.KindJVMHistogram) {
		t.Fatalf("detected %s", up.Artifacts[0].Kind)
	}
	doc := jvmGetDoc[jvmHistogramAnalysis](t, ts, "/api/reports/"+up.ReportID)
	a := doc.Analysis
	if doc.Kind != webjvm.ReportHistogram || a.TotalInstances != inst || a.TotalBytes != byt || !a.HasTotal || a.ClassCount != rowCount {
		t.Errorf("%s: totals %d/%d has_total %v classes %d; the file's Total line says %d/%d over %d rows",
			doc.Kind, a.TotalInstances, a.TotalBytes, a.HasTotal, a.ClassCount, inst, byt, rowCount)
	}
	byBytes := want.Ranked(jvm.ByBytes)
	if len(a.Classes) != page.DefaultRows || !reflect.DeepEqual(a.Classes, byBytes[:page.DefaultRows]) {
		t.Errorf("%d classes, first %+v; want the engine's first %d, first %+v", len(a.Classes), a.Classes[0], page.DefaultRows, byBytes[0])
	}
	all := jvmGetDoc[jvmHistogramAnalysis](t, ts, "/api/reports/"+up.ReportID+"?n=all&sort=instances").Analysis
	byInst := want.Ranked(jvm.ByInstances)
	if len(all.Classes) != rowCount || all.Order != "instances" || !reflect.DeepEqual(all.Classes, byInst) {
		t.Errorf("n=all&sort=instances: %d classes ordered by %s; want %d by instances", len(all.Classes), all.Order, rowCount)
	}

	pg, body := jvmGetPage(t, ts, up.ReportURL)
	if got := pg.Find("[data-testid=total-check]").AttrOr("data-ok", ""); got != "true" {
		t.Errorf("the Total line check says %q: %s", got, pg.Find("[data-testid=total-check]").Text())
	}
	if got := pg.Find("[data-testid=total-instances]").Text(); got != analyze.FormatCount(inst) {
		t.Errorf("instances figure %q, want %s", got, analyze.FormatCount(inst))
	}
	if got := pg.Find("[data-testid=total-bytes]").Text(); got != analyze.FormatBytes(byt) {
		t.Errorf("bytes figure %q, want %s", got, analyze.FormatBytes(byt))
	}
	rows := pg.Find("[data-testid=class-row]")
	if rows.Length() != page.DefaultRows || rows.First().Find("[data-testid=class-name]").Text() != byBytes[0].Name ||
		rows.First().AttrOr("data-bytes", "") != fmt.Sprint(byBytes[0].Bytes) {
		t.Errorf("%d rows, first %q %s", rows.Length(), rows.First().Find("[data-testid=class-name]").Text(), rows.First().AttrOr("data-bytes", ""))
	}
	if href := pg.Find("[data-testid=show-all]").AttrOr("href", ""); href != up.ReportURL+"?n=all" {
		t.Errorf("show all links to %q", href)
	}
	if !utf8.Valid(body) {
		t.Error("the page is not valid UTF-8")
	}
	pg, _ = jvmGetPage(t, ts, up.ReportURL+"?n=all&sort=instances")
	if n := pg.Find("[data-testid=class-row]").Length(); n != rowCount {
		t.Errorf("?n=all shows %d rows, grep counts %d", n, rowCount)
	}
	if got := pg.Find("[data-testid=class-row]").First().AttrOr("data-instances", ""); got != fmt.Sprint(byInst[0].Instances) {
		t.Errorf("by instances, the first row has %s instances; want %d", got, byInst[0].Instances)
	}

	code, ct, md := ts.get(t, up.ReportURL+".md")
	if code != 200 || !strings.HasPrefix(ct, "text/markdown") {
		t.Fatalf("markdown: %d %s", code, ct)
	}
	for _, s := range []string{ts.URL + up.ReportURL, up.Artifacts[0].SHA256, classhist.Markdown(want, 10)} {
		if !bytes.Contains(md, []byte(s)) {
			t.Errorf("the Markdown lacks %q:\n%s", s, md)
		}
	}
	_, _, home := ts.get(t, "/")
	if line := fmt.Sprintf("%s classes, %s", analyze.FormatCount(int64(rowCount)), analyze.FormatBytes(byt)); !bytes.Contains(home, []byte(line)) {
		t.Errorf("the dashboard does not say %q", line)
	}
}

// jvmHistogramDiffAnalysis is the documented shape of `leakui histo -json HISTOGRAM
// BASE` plus the page's tables.
type jvmHistogramDiffAnalysis struct {
	Base           snapshot.JSON     `json:"base"`
	Target         snapshot.JSON     `json:"target"`
	TotalInstances int64             `json:"total_instances"`
	TotalBytes     int64             `json:"total_bytes"`
	Classes        []jvm.ClassChange `json:"classes"`
	GrownBytes     []jvm.ClassChange `json:"grown_bytes"`
	GrownInstances []jvm.ClassChange `json:"grown_instances"`
	Suspects       []jvm.ClassChange `json:"suspects"`
	Snapshots      []snapshot.JSON   `json:"snapshots"`
}

// TestJavaHistogramDiffReport uploads the SAMZA-2785 picture, 14 and then 1,741
// leaked KafkaSystemConsumers, newest first, and checks that the diff orders them
// by the histograms' own time and names the consumer as the suspect, with the
// numbers that were written.
func TestJavaHistogramDiffReport(t *testing.T) {
	ts := newTestServer(t, Config{})
	baseText, baseInst, baseBytes := jvmHistogramText("2020-02-25 03:21:02", jvmSamzaHeap(14))
	targetText, targetInst, targetBytes := jvmHistogramText("2020-02-25 09:21:02", jvmSamzaHeap(1741))
	up := ts.mustUpload(t, nil, file{"after.histo", []byte(targetText)}, file{"before.histo", []byte(baseText)})

	doc := jvmGetDoc[jvmHistogramDiffAnalysis](t, ts, "/api/reports/"+up.ReportID)
	a := doc.Analysis
	if doc.Kind != webjvm.ReportHistogramDiff || doc.Artifacts[0].Name != "before.histo" || doc.Params.OrderedBy != "histogram time" {
		t.Fatalf("kind %s, first file %s, ordered by %q: want a diff from before.histo by histogram time", doc.Kind, doc.Artifacts[0].Name, doc.Params.OrderedBy)
	}
	if a.Base.Name != "before.histo" || a.Target.Name != "after.histo" || a.TotalBytes != targetBytes-baseBytes || a.TotalInstances != targetInst-baseInst {
		t.Errorf("%s → %s: %d bytes %d instances; want before → after, %d and %d", a.Base.Name, a.Target.Name, a.TotalBytes, a.TotalInstances,
			targetBytes-baseBytes, targetInst-baseInst)
	}
	if len(a.Suspects) == 0 || a.Suspects[0].Name != jvmSamzaConsumer || a.Suspects[0].BaseInstances != 14 || a.Suspects[0].TargetInstances != 1741 || a.Suspects[0].Instances != 1727 {
		t.Errorf("first suspect %+v; want %s 14 → 1741", a.Suspects, jvmSamzaConsumer)
	}
	if len(a.GrownBytes) == 0 || a.GrownBytes[0].Name != "[B" || a.GrownBytes[0].Bytes != 4_900_000*1727 {
		t.Errorf("grew most in bytes: %+v; want [B +%d", a.GrownBytes, 4_900_000*1727)
	}
	want := jvm.DiffHistograms(jvmParseHistogram(t, []byte(baseText)), jvmParseHistogram(t, []byte(targetText)))
	if !reflect.DeepEqual(a.Suspects, want.Suspects(page.DefaultRows)) || !reflect.DeepEqual(a.GrownInstances, want.Grown(jvm.ByInstances, page.DefaultRows)) ||
		!reflect.DeepEqual(a.Classes, want.Classes) {
		t.Error("the JSON tables differ from the engine's diff")
	}

	pg, body := jvmGetPage(t, ts, up.ReportURL)
	headline := pg.Find("[data-testid=headline]").Text()
	if !strings.HasPrefix(headline, jvmSamzaConsumer+": 14 → 1,741 instances (+1,727)") {
		t.Errorf("the headline does not lead with the consumer: %q", headline)
	}
	suspect := pg.Find("[data-testid=suspects] [data-testid=change-row]").First()
	if suspect.Find("[data-testid=class-name]").Text() != jvmSamzaConsumer || suspect.AttrOr("data-instances", "") != "1727" {
		t.Errorf("first suspect row: %q %s", suspect.Find("[data-testid=class-name]").Text(), suspect.AttrOr("data-instances", ""))
	}
	if bytes.Index(body, []byte(`data-testid="suspects"`)) > bytes.Index(body, []byte(`data-testid="grown-bytes"`)) {
		t.Error("the suspects come after the byte growth")
	}
	grown := pg.Find("[data-testid=grown-bytes] [data-testid=change-row]").First()
	if grown.Find("[data-testid=class-name]").Text() != "[B" || grown.AttrOr("data-bytes", "") != fmt.Sprint(4_900_000*1727) {
		t.Errorf("first byte growth row %q", grown.Find("[data-testid=class-name]").Text())
	}
	if got := pg.Find("[data-testid=change-bytes]").Text(); got != "+"+analyze.FormatBytes(targetBytes-baseBytes) || !strings.HasSuffix(got, " GB") {
		t.Errorf("bytes change figure %q; want +%s (the 8 GB of the report)", got, analyze.FormatBytes(targetBytes-baseBytes))
	}

	// Each histogram alone, and the diff the other way round.
	pg, _ = jvmGetPage(t, ts, up.ReportURL+"?snapshot=0")
	if got := pg.Find("[data-testid=total-instances]").Text(); got != analyze.FormatCount(baseInst) {
		t.Errorf("snapshot 0 shows %s instances, want the base's %s", got, analyze.FormatCount(baseInst))
	}
	rev := jvmGetDoc[jvmHistogramDiffAnalysis](t, ts, "/api/reports/"+up.ReportID+"?base=1&target=0").Analysis
	if len(rev.Suspects) != 0 || rev.TotalBytes != baseBytes-targetBytes {
		t.Errorf("after → before: %d suspects, %d bytes", len(rev.Suspects), rev.TotalBytes)
	}

	_, _, md := ts.get(t, up.ReportURL+".md")
	if !bytes.Contains(md, []byte(classhist.DiffMarkdown(want, 10))) {
		t.Errorf("the Markdown lacks the diff's summary:\n%s", md)
	}
	_, _, home := ts.get(t, "/")
	if line := "suspect " + jvmSamzaConsumer + " +1,727 instances"; !bytes.Contains(home, []byte(line)) {
		t.Errorf("the dashboard does not say %q", line)
	}
}

// TestJavaHistogramsInOneFile uploads one file of three histograms (a script that
// ran jmap three times) and two files without time stamps.
func TestJavaHistogramsInOneFile(t *testing.T) {
	ts := newTestServer(t, Config{})
	var all strings.Builder
	for i, n := range []int64{14, 500, 1741} {
		text, _, _ := jvmHistogramText(fmt.Sprintf("2020-02-25 0%d:00:00", i+3), jvmSamzaHeap(n))
		all.WriteString(text + "\n")
	}
	up := ts.mustUpload(t, nil, file{"three.histo", []byte(all.String())})
	doc := jvmGetDoc[jvmHistogramDiffAnalysis](t, ts, "/api/reports/"+up.ReportID)
	a := doc.Analysis
	if doc.Kind != webjvm.ReportHistogramDiff || len(a.Snapshots) != 3 || a.Base.Index != 0 || a.Target.Index != 2 ||
		a.Suspects[0].BaseInstances != 14 || a.Suspects[0].TargetInstances != 1741 {
		t.Errorf("kind %s, %d snapshots, %d → %d, suspect %+v", doc.Kind, len(a.Snapshots), a.Base.Index, a.Target.Index, a.Suspects)
	}
	pg, _ := jvmGetPage(t, ts, up.ReportURL)
	if n := pg.Find("[data-testid=snapshot]").Length(); n != 3 {
		t.Errorf("the snapshot table has %d rows", n)
	}
	if pg.Find("[data-testid=snapshot-base]").Length() != 1 || pg.Find("[data-testid=snapshot-target]").Length() != 1 {
		t.Error("the base and the target are not marked")
	}
	mid := jvmGetDoc[jvmHistogramDiffAnalysis](t, ts, "/api/reports/"+up.ReportID+"?base=1").Analysis
	if mid.Suspects[0].BaseInstances != 500 {
		t.Errorf("base=1 compares from %d instances, want 500", mid.Suspects[0].BaseInstances)
	}

	x, _, _ := jvmHistogramText("", jvmSamzaHeap(20))
	y, _, _ := jvmHistogramText("", jvmSamzaHeap(10))
	up = ts.mustUpload(t, nil, file{"x.histo", []byte(x)}, file{"y.histo", []byte(y)})
	doc = jvmGetDoc[jvmHistogramDiffAnalysis](t, ts, "/api/reports/"+up.ReportID)
	if doc.Params.OrderedBy != "upload order" || doc.Analysis.Base.Name != "x.histo" || len(doc.Analysis.Suspects) != 0 {
		t.Errorf("without time stamps: ordered by %q from %s, %d suspects", doc.Params.OrderedBy, doc.Analysis.Base.Name, len(doc.Analysis.Suspects))
	}
}

// jvmThreadsAnalysis is the documented shape of `leakui threads -json`.
type jvmThreadsAnalysis struct {
	Total      int                    `json:"total"`
	Daemon     int                    `json:"daemon"`
	GroupCount int                    `json:"group_count"`
	Dumps      int                    `json:"dumps"`
	Groups     []jvm.ThreadGroup      `json:"groups"`
	Deadlocks  []jvm.Deadlock         `json:"deadlocks"`
	Diff       *jvm.ThreadDiff        `json:"diff"`
	Histograms []jvmHistogramAnalysis `json:"histograms"`
	Names      []jvm.NamePattern      `json:"names"`
	States     []jvm.StateCount       `json:"states"`
	Snapshot   snapshot.JSON          `json:"snapshot"`
}

func jvmAnalyzeThreadsFile(t *testing.T, path string) *jvm.ThreadReport {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := jvm.AnalyzeThreads(f)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestJavaThreadsReport uploads real dumps: the JVM-reported deadlock shows first,
// the thread counts equal grep's, the groups equal the engine's, the histogram
// printed with a JDK 5 dump is shown, and the non-UTF-8 HP-UX dump gives a valid
// page.
func TestJavaThreadsReport(t *testing.T) {
	ts := newTestServer(t, Config{})
	const threadHeader = `^".*tid=`

	path := fixtures.Path(t, "jvm", "jthreaddump-jstack-deadlock.txt")
	up := ts.mustUpload(t, nil, fixture(t, "jvm", "jthreaddump-jstack-deadlock.txt"))
	want := jvmAnalyzeThreadsFile(t, path)
	a := jvmGetDoc[jvmThreadsAnalysis](t, ts, "/api/reports/"+up.ReportID).Analysis
	if a.Total != jvmGrepCount(t, threadHeader, path) || len(a.Deadlocks) != jvmGrepCount(t, "Found one Java-level deadlock", path) || len(a.Deadlocks) == 0 {
		t.Errorf("%d threads, %d deadlocks; grep counts %d and %d", a.Total, len(a.Deadlocks), jvmGrepCount(t, threadHeader, path), jvmGrepCount(t, "Found one Java-level deadlock", path))
	}
	sum := 0
	for _, g := range a.Groups {
		sum += g.Count
	}
	if a.GroupCount <= page.DefaultRows && sum != a.Total {
		t.Errorf("the groups hold %d threads, the dump %d", sum, a.Total)
	}
	if !a.Groups[0].Deadlocked || a.Groups[0].Count != want.Groups.Groups[0].Count || !reflect.DeepEqual(a.Groups[0].Stack, want.Groups.Groups[0].Stack) {
		t.Errorf("first group %+v; want the engine's deadlocked group first", a.Groups[0])
	}
	pg, body := jvmGetPage(t, ts, up.ReportURL)
	if pg.Find("[data-testid=deadlock]").Length() != len(a.Deadlocks) {
		t.Errorf("%d deadlock sections", pg.Find("[data-testid=deadlock]").Length())
	}
	if i, j := bytes.Index(body, []byte(`data-testid="deadlock"`)), bytes.Index(body, []byte(`data-testid="groups"`)); i < 0 || i > j {
		t.Error("the deadlock is not shown before the groups")
	}
	if got := pg.Find("[data-testid=total-threads]").Text(); got != fmt.Sprint(a.Total) {
		t.Errorf("threads figure %q", got)
	}
	if jvmFirst := pg.Find("[data-testid=group]").First(); jvmFirst.AttrOr("data-deadlocked", "") != "true" {
		t.Error("the first group row is not the deadlocked one")
	}
	_, _, md := ts.get(t, up.ReportURL+".md")
	if !bytes.Contains(md, []byte(webjvm.ThreadReportMarkdown(want, 10))) {
		t.Errorf("the Markdown lacks the report's summary:\n%s", md)
	}

	// The JDK 5 dump with a class histogram after it.
	withHisto := fixtures.Path(t, "jvm", "tda-jdk15-threaddump-with-class-histogram.log")
	_, inst, byt := jvmTDAHistogram(t)
	up = ts.mustUpload(t, nil, fixture(t, "jvm", "tda-jdk15-threaddump-with-class-histogram.log"))
	a = jvmGetDoc[jvmThreadsAnalysis](t, ts, "/api/reports/"+up.ReportID).Analysis
	if a.Total != jvmGrepCount(t, threadHeader, withHisto) || len(a.Histograms) != 1 || a.Histograms[0].TotalInstances != inst || a.Histograms[0].TotalBytes != byt {
		t.Errorf("%d threads, histograms %+v; want %d threads and one histogram of %d/%d", a.Total, len(a.Histograms), jvmGrepCount(t, threadHeader, withHisto), inst, byt)
	}
	pg, _ = jvmGetPage(t, ts, up.ReportURL)
	embedded := pg.Find("[data-testid=embedded-histogram]")
	if embedded.Length() != 1 || embedded.Find("[data-testid=total-check]").AttrOr("data-ok", "") != "true" || embedded.Find("[data-testid=class-row]").Length() != page.DefaultRows {
		t.Errorf("embedded histogram: %d sections", embedded.Length())
	}

	// The HP-UX dump: two dumps, Korean date bytes that are not UTF-8.
	hpux := fixtures.Path(t, "jvm", "tda-threaddump-hpux-jdk15-jeus-large.log")
	up = ts.mustUpload(t, nil, fixture(t, "jvm", "tda-threaddump-hpux-jdk15-jeus-large.log"))
	a = jvmGetDoc[jvmThreadsAnalysis](t, ts, "/api/reports/"+up.ReportID).Analysis
	if a.Dumps != jvmGrepCount(t, "Full thread dump", hpux) || a.Diff == nil || a.Diff.BaseTotal+a.Diff.TargetTotal != jvmGrepCount(t, threadHeader, hpux) || a.Total != a.Diff.TargetTotal {
		t.Errorf("%d dumps; diff %v; grep counts %d dumps, %d threads", a.Dumps, a.Diff != nil, jvmGrepCount(t, "Full thread dump", hpux), jvmGrepCount(t, threadHeader, hpux))
	}
	pg, body = jvmGetPage(t, ts, up.ReportURL)
	if !utf8.Valid(body) {
		t.Error("the HP-UX page is not valid UTF-8")
	}
	if meta := pg.Find("[data-testid=meta-JVM]").Text(); !strings.Contains(meta, "\uFFFD") || !strings.Contains(meta, "IA64W mixed mode") {
		t.Errorf("the JVM line %q does not show the undecodable date bytes as U+FFFD", meta)
	}
	if pg.Find("[data-testid=thread-diff]").Length() != 1 {
		t.Error("the file's two dumps are not compared")
	}
}

// jvmThreadsDiffAnalysis is the diff of two files' dumps.
type jvmThreadsDiffAnalysis struct {
	Base        snapshot.JSON           `json:"base"`
	Target      snapshot.JSON           `json:"target"`
	BaseTotal   int                     `json:"base_total"`
	TargetTotal int                     `json:"target_total"`
	New         []jvm.ThreadGroupChange `json:"new"`
	Grown       []jvm.ThreadGroupChange `json:"grown"`
	Names       []jvm.NameChange        `json:"names"`
	TargetDump  jvmThreadsAnalysis      `json:"target_dump"`
}

// TestJavaThreadsDiffReport uploads the SAMZA-2785 thread picture, 3 and then 168
// poll threads, newest first.
func TestJavaThreadsDiffReport(t *testing.T) {
	ts := newTestServer(t, Config{})
	before := jvmtext.Dump("2020-02-25 03:21:02", append(jvmContainerThreads(), jvmPollThreads(3)...))
	after := jvmtext.Dump("2020-02-25 09:21:02", append(jvmPollThreads(168), jvmContainerThreads()...))
	up := ts.mustUpload(t, nil, file{"after.jstack", []byte(after)}, file{"before.jstack", []byte(before)})
	doc := jvmGetDoc[jvmThreadsDiffAnalysis](t, ts, "/api/reports/"+up.ReportID)
	a := doc.Analysis
	if doc.Kind != webjvm.ReportThreadsDiff || a.Base.Name != "before.jstack" || a.BaseTotal != 5 || a.TargetTotal != 170 || a.TargetDump.Total != 170 {
		t.Fatalf("%s: %s %d → %d", doc.Kind, a.Base.Name, a.BaseTotal, a.TargetTotal)
	}
	if len(a.Names) == 0 || a.Names[0].Pattern != jvmPollPattern || a.Names[0].Base != 3 || a.Names[0].Target != 168 {
		t.Errorf("names %+v; want %q 3 → 168 first", a.Names, jvmPollPattern)
	}
	if len(a.Grown) != 1 || a.Grown[0].Count != 168 || a.Grown[0].BaseCount != 3 || len(a.New) != 0 {
		t.Errorf("grown %+v new %d; want the poll group 3 → 168", a.Grown, len(a.New))
	}
	pg, _ := jvmGetPage(t, ts, up.ReportURL)
	if h := pg.Find("[data-testid=headline]").Text(); !strings.HasPrefix(h, "Threads: 5 → 170 (+165).") || !strings.Contains(h, jvmPollPattern) {
		t.Errorf("headline %q", h)
	}
	row := pg.Find("[data-testid=name-changes-row]").First()
	if row.Find("[data-testid=label]").Text() != jvmPollPattern || row.Find("[data-testid=change]").Text() != "+165" {
		t.Errorf("first name change %q %q", row.Find("[data-testid=label]").Text(), row.Find("[data-testid=change]").Text())
	}
	g := pg.Find("[data-testid=grown-groups] [data-testid=group]").First()
	if g.AttrOr("data-count", "") != "168" || g.Find("[data-testid=group-change]").Text() != "+165, was 3" {
		t.Errorf("grown group %s %q", g.AttrOr("data-count", ""), g.Find("[data-testid=group-change]").Text())
	}
	parse := func(s string) *jvm.ThreadGroups {
		r, err := jvm.AnalyzeThreads(strings.NewReader(s))
		if err != nil {
			t.Fatal(err)
		}
		return r.Groups
	}
	_, _, md := ts.get(t, up.ReportURL+".md")
	if want := webjvm.ThreadDiffMarkdown(jvm.DiffThreads(parse(before), parse(after)), 10); !bytes.Contains(md, []byte(want)) {
		t.Errorf("the Markdown lacks the diff's summary:\n%s", md)
	}
	// The grown poll group's row, as a ticket shows it (pinned in analyze/jvm
	// before the rendering moved here).
	if row := "| 168 | +165 | `RUNNABLE` | `" + jvmPollPattern + "` |"; !bytes.Contains(md, []byte(row)) {
		t.Errorf("the Markdown lacks the row %q:\n%s", row, md)
	}
	_, _, home := ts.get(t, "/")
	if !bytes.Contains(home, []byte("threads 5 → 170 (+165)")) {
		t.Error("the dashboard does not show the thread growth")
	}
}

// jvmNMTAnalysis is the documented shape of `leakui nmt -json`.
type jvmNMTAnalysis struct {
	Scale          string            `json:"scale"`
	Diff           bool              `json:"diff"`
	TotalReserved  int64             `json:"total_reserved"`
	TotalCommitted int64             `json:"total_committed"`
	Categories     []jvm.NMTCategory `json:"categories"`
	Comparison     *jvm.NMTDiff      `json:"comparison"`
	NativeLeak     *jvm.NativeLeak   `json:"native_leak"`
}

// TestJavaNMTReport uploads the real native memory summaries (KB and bytes) and
// checks the totals against their Total lines, the categories against grep, and
// that the chart draws one bar per category without inline styles.
func TestJavaNMTReport(t *testing.T) {
	ts := newTestServer(t, Config{})
	for _, tc := range []struct {
		name  string
		scale int64
	}{{"nmt-summary-jdk8-1529threads-KB.txt", 1024}, {"nmt-summary-jdk17-bytes.txt", 1}} {
		path := fixtures.Path(t, "jvm", tc.name)
		total := greptest.Output(t, "-a", "--", "^Total:", path)
		var reservedN, committedN int64
		if len(total) != 1 {
			t.Fatalf("%s: %d Total lines", tc.name, len(total))
		}
		for _, f := range strings.Split(strings.TrimPrefix(total[0], "Total: "), ", ") {
			k, v, _ := strings.Cut(f, "=")
			n := greptest.Int(t, strings.TrimSuffix(v, "KB")) * tc.scale
			if k == "reserved" {
				reservedN = n
			} else {
				committedN = n
			}
		}
		categories := jvmGrepCount(t, `^-.*(reserved=`, path)
		up := ts.mustUpload(t, nil, fixture(t, "jvm", tc.name))
		doc := jvmGetDoc[jvmNMTAnalysis](t, ts, "/api/reports/"+up.ReportID)
		a := doc.Analysis
		if doc.Kind != webjvm.ReportNMT || a.TotalCommitted != committedN || a.TotalReserved != reservedN || len(a.Categories) != categories || a.Comparison != nil {
			t.Errorf("%s: %s %d/%d committed/reserved, %d categories; the Total line says %d/%d, grep finds %d categories",
				tc.name, doc.Kind, a.TotalCommitted, a.TotalReserved, len(a.Categories), committedN, reservedN, categories)
		}
		pg, body := jvmGetPage(t, ts, up.ReportURL)
		if n := pg.Find("[data-testid=nmt-bar]").Length(); n != categories {
			t.Errorf("%s: the chart has %d bars for %d categories", tc.name, n, categories)
		}
		if n := pg.Find("[data-testid=nmt-category]").Length(); n != categories {
			t.Errorf("%s: the table has %d rows", tc.name, n)
		}
		if pg.Find("[style]").Length() != 0 || bytes.Contains(body, []byte("<style")) {
			t.Errorf("%s: the page has inline styles, which the CSP forbids", tc.name)
		}
		if got := pg.Find("[data-testid=total-committed]").Text(); got != analyze.FormatBytes(committedN) {
			t.Errorf("%s: committed figure %q", tc.name, got)
		}
		if pg.Find("[data-testid=native-leak]").Length() != 0 {
			t.Errorf("%s: a single summary cannot show a leak", tc.name)
		}
		n, err := jvm.ParseNMT(bytes.NewReader(fixture(t, "jvm", tc.name).data))
		if err != nil {
			t.Fatal(err)
		}
		if _, _, md := ts.get(t, up.ReportURL+".md"); !bytes.Contains(md, []byte(webjvm.NMTMarkdown(n))) {
			t.Errorf("%s: the Markdown lacks the report's summary:\n%s", tc.name, md)
		}
	}
}

// jvmNMTDiffAnalysis is the diff of two native memory reports.
type jvmNMTDiffAnalysis struct {
	Base       snapshot.JSON   `json:"base"`
	Target     snapshot.JSON   `json:"target"`
	Comparison *jvm.NMTDiff    `json:"comparison"`
	NativeLeak *jvm.NativeLeak `json:"native_leak"`
}

// TestJavaNMTLeakSignature uploads a broker whose Internal memory (direct
// buffers) grows by 1.2 GB while its heap stays put, as two summaries and as one
// summary.diff: growth NMT tracks, named by its category and never KAFKA-3933
// (NMT does not see zlib's memory); and a healthy pair whose heap grows with it.
func TestJavaNMTLeakSignature(t *testing.T) {
	ts := newTestServer(t, Config{})
	const leakedKB = 1200 * 1024
	before, _, baseKB := jvmNMTSummaryText("2016-07-12 14:00:00", jvmKafkaBroker(0))
	after, _, targetKB := jvmNMTSummaryText("2016-07-12 14:30:00", jvmKafkaBroker(leakedKB))
	up := ts.mustUpload(t, nil, file{"after.nmt", []byte(after)}, file{"before.nmt", []byte(before)})
	doc := jvmGetDoc[jvmNMTDiffAnalysis](t, ts, "/api/reports/"+up.ReportID)
	a := doc.Analysis
	if doc.Kind != webjvm.ReportNMTDiff || a.Base.Name != "before.nmt" || a.Comparison.TotalCommittedDelta != (targetKB-baseKB)*1024 ||
		a.Comparison.NonHeapCommittedDelta != leakedKB*1024 || a.Comparison.HeapCommittedDelta != 0 {
		t.Fatalf("%s from %s: %+v", doc.Kind, a.Base.Name, a.Comparison)
	}
	if a.NativeLeak == nil || a.NativeLeak.Cause != "direct-buffers" || a.NativeLeak.Category != "Internal" || a.NativeLeak.Grew[0].Name != "Internal" {
		t.Fatalf("native leak %+v; want direct buffers, in Internal", a.NativeLeak)
	}
	pg, _ := jvmGetPage(t, ts, up.ReportURL)
	leak := pg.Find("[data-testid=native-leak]")
	if leak.Length() != 1 || strings.Contains(leak.Text(), "KAFKA-3933") || !strings.Contains(leak.Text(), "direct buffers") ||
		leak.AttrOr("data-cause", "") != "direct-buffers" || leak.Find("[data-testid=native-leak-message]").Text() != a.NativeLeak.Message {
		t.Errorf("the callout is missing or differs: %q", leak.Text())
	}
	if jvmFirst := pg.Find("[data-testid=nmt-change]").First(); jvmFirst.Find("[data-testid=category]").Text() != "Internal" ||
		jvmFirst.AttrOr("data-change", "") != fmt.Sprint(leakedKB*1024) {
		t.Errorf("first change %q %s", jvmFirst.Find("[data-testid=category]").Text(), jvmFirst.AttrOr("data-change", ""))
	}
	if pg.Find("[data-testid=nmt-base]").Length() != len(jvmKafkaBroker(0)) {
		t.Error("the chart does not draw the base's committed memory")
	}
	_, _, home := ts.get(t, "/")
	if !bytes.Contains(home, []byte("native leak signature")) {
		t.Error("the dashboard does not flag the native leak")
	}

	// The same as one summary.diff against a baseline.
	diffText, deltaKB := jvmNMTDiffText(jvmKafkaBroker(0), jvmKafkaBroker(leakedKB))
	up = ts.mustUpload(t, nil, file{"summary.diff", []byte(diffText)})
	one := jvmGetDoc[jvmNMTAnalysis](t, ts, "/api/reports/"+up.ReportID)
	if one.Kind != webjvm.ReportNMT || !one.Analysis.Diff || one.Analysis.NativeLeak == nil || one.Analysis.Comparison.TotalCommittedDelta != deltaKB*1024 {
		t.Errorf("summary.diff: %s diff=%v leak=%v", one.Kind, one.Analysis.Diff, one.Analysis.NativeLeak != nil)
	}
	pg, _ = jvmGetPage(t, ts, up.ReportURL)
	if pg.Find("[data-testid=native-leak]").Length() != 1 || pg.Find("[data-testid=nmt-changes]").Length() != 1 {
		t.Error("the summary.diff page lacks the callout or the changes")
	}

	// A heap that grows as much is no native leak.
	grown := jvmKafkaBroker(leakedKB)
	grown[0].committed += 2 * leakedKB
	healthy, _, _ := jvmNMTSummaryText("2016-07-12 14:30:00", grown)
	up = ts.mustUpload(t, nil, file{"before.nmt", []byte(before)}, file{"healthy.nmt", []byte(healthy)})
	if h := jvmGetDoc[jvmNMTDiffAnalysis](t, ts, "/api/reports/"+up.ReportID).Analysis; h.NativeLeak != nil {
		t.Errorf("a growing heap was called a native leak: %+v", h.NativeLeak)
	}
	pg, _ = jvmGetPage(t, ts, up.ReportURL)
	if pg.Find("[data-testid=native-leak]").Length() != 0 {
		t.Error("the healthy page shows the callout")
	}
}

// TestJavaUploadErrors checks the refusals of JVM uploads: status, message, and
// nothing stored.
func TestJavaUploadErrors(t *testing.T) {
	good, _, _ := jvmHistogramText("", jvmSamzaHeap(1))
	for _, tc := range []struct {
		name   string
		files  []file
		status int
		msg    string
	}{
		{"histogram header without rows", []file{{"h.txt", []byte(" num     #instances         #bytes  class name (module)\n---------\n\nsomething else\n")}}, 422, "has no rows"},
		{"histogram count out of range", []file{{"h.txt", []byte(" num     #instances         #bytes  class name\n   1:  99999999999999999999999  10  [B\nTotal 1 10\n")}}, 422, "out of range"},
		{"a broken one among good ones", []file{{"a.txt", []byte(good)}, {"b.txt", []byte(" num     #instances         #bytes  class name\n   1:  99999999999999999999999  10  [B\n")}}, 422, "b.txt"},
		{"native memory report without a Total line", []file{{"n.txt", []byte("Native Memory Tracking:\n\n-                 Java Heap (reserved=4194304KB, committed=1048576KB)\n")}}, 422, "no Total line"},
		{"a histogram and a thread dump", []file{{"a.txt", []byte(good)}, fixture(t, "jvm", "tda-jstack-jdk8-openjdk.log")}, 422, "upload files of one kind together"},
		{"truncated gzip", []file{{"h.gz", gzipBytes([]byte(good))[:40]}}, 422, "malformed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestServer(t, Config{})
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

// TestJavaQueryErrors checks the parameters of JVM pages.
func TestJavaQueryErrors(t *testing.T) {
	ts := newTestServer(t, Config{})
	a, _, _ := jvmHistogramText("", jvmSamzaHeap(1))
	b, _, _ := jvmHistogramText("", jvmSamzaHeap(2))
	up := ts.mustUpload(t, nil, file{"a", []byte(a)}, file{"b", []byte(b)})
	for _, tc := range []struct{ query, msg string }{
		{"?sort=size", "sort must be bytes or instances"},
		{"?snapshot=2", "snapshot must be a snapshot number from 0 to 1"},
		{"?base=1&target=1", "base and target must be different"},
		{"?n=0", "n must be a positive number"},
	} {
		for _, path := range []string{up.ReportURL, "/api/reports/" + up.ReportID, up.ReportURL + ".md"} {
			code, _, body := ts.get(t, path+tc.query)
			if code != 400 || !bytes.Contains(body, []byte(tc.msg)) {
				t.Errorf("GET %s%s: %d %s", path, tc.query, code, body)
			}
		}
	}
}

// TestJavaKindsAreAccepted checks that the upload page and a 415 list the JVM inputs.
func TestJavaKindsAreAccepted(t *testing.T) {
	ts := newTestServer(t, Config{})
	_, _, home := ts.get(t, "/")
	for _, s := range []string{"JVM class histograms", "JVM thread dumps", "JVM native memory tracking"} {
		if !bytes.Contains(home, []byte(s)) {
			t.Errorf("the upload form does not list %q", s)
		}
	}
	if bytes.Index(home, []byte("pprof profiles")) > bytes.Index(home, []byte("JVM class histograms")) {
		t.Error("the JVM inputs are listed before the pprof profiles")
	}
	status, _, raw := ts.upload(t, file{"x.bin", []byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}})
	if status != 415 || !strings.Contains(raw, "JVM class histograms") {
		t.Errorf("%d %s", status, raw)
	}
}

// jvmSeriesAnalysis is the part of the series report the tests read.
type jvmSeriesAnalysis struct {
	Verdict  string `json:"verdict"`
	Suspects []struct {
		Name   string  `json:"name"`
		Values []int64 `json:"values"`
	} `json:"suspects"`
}

// TestJavaHistogramSeries uploads eight histograms of a leaking Samza container in
// two files whose times interleave, and seven of a steady one: the series analysis
// (the one profiles use) names the consumer classes by instances and byte[] by
// bytes, with the values in time order, and calls the steady heap steady.
func TestJavaHistogramSeries(t *testing.T) {
	ts := newTestServer(t, Config{})
	counts := []int64{14, 200, 420, 650, 880, 1100, 1390, 1741}
	var a, b strings.Builder
	for i, n := range counts {
		text, _, _ := jvmHistogramText(fmt.Sprintf("2020-02-25 %02d:00:00", 3+i), jvmSamzaHeap(n))
		if i%2 == 0 {
			a.WriteString(text + "\n")
		} else {
			b.WriteString(text + "\n")
		}
	}
	up := ts.mustUpload(t, nil, file{"odd-hours.histo", []byte(b.String())}, file{"even-hours.histo", []byte(a.String())})
	type doc struct {
		Snapshots []snapshot.JSON              `json:"snapshots"`
		Series    map[string]jvmSeriesAnalysis `json:"series"`
		Suspects  []jvm.ClassChange            `json:"suspects"`
	}
	d := jvmGetDoc[doc](t, ts, "/api/reports/"+up.ReportID)
	if d.Params.OrderedBy != "histogram time" || len(d.Analysis.Snapshots) != len(counts) {
		t.Fatalf("ordered by %q, %d snapshots", d.Params.OrderedBy, len(d.Analysis.Snapshots))
	}
	for i, s := range d.Analysis.Snapshots {
		if want := []string{"even-hours.histo", "odd-hours.histo"}[i%2]; s.Name != want || s.Time.Hour() != 3+i {
			t.Errorf("snapshot %d is %s at %v; want %s at %02d:00", i, s.Name, s.Time, want, 3+i)
		}
	}
	inst, byt := d.Analysis.Series["instances"], d.Analysis.Series["bytes"]
	if inst.Verdict != "leak" || byt.Verdict != "leak" {
		t.Fatalf("verdicts %q by instances, %q by bytes; want leak", inst.Verdict, byt.Verdict)
	}
	var names []string
	for _, s := range inst.Suspects {
		names = append(names, s.Name)
		if s.Name == jvmSamzaConsumer && !reflect.DeepEqual(s.Values, counts) {
			t.Errorf("the consumer's series is %v; the histograms hold %v", s.Values, counts)
		}
	}
	if want := []string{jvmKafkaConsumer, "org.apache.kafka.clients.consumer.internals.Fetcher", jvmSamzaConsumer}; !reflect.DeepEqual(names, want) {
		t.Errorf("suspects by instances %v; want the application classes that grew, %v", names, want)
	}
	if len(byt.Suspects) == 0 || byt.Suspects[0].Name != "[B" {
		t.Errorf("suspects by bytes %+v; want [B first", byt.Suspects)
	}
	pg, _ := jvmGetPage(t, ts, up.ReportURL)
	for _, id := range []string{"instances", "bytes"} {
		if v := pg.Find("[data-testid=series-"+id+"] [data-testid=series-verdict]").AttrOr("data-verdict", ""); v != "leak" {
			t.Errorf("the page's series by %s says %q", id, v)
		}
	}
	if !strings.Contains(pg.Find("[data-testid=series-instances] [data-testid=series-suspects]").Text(), jvmSamzaConsumer) {
		t.Error("the page's suspects by instances do not name the consumer")
	}
	_, _, md := ts.get(t, up.ReportURL+".md")
	if !bytes.Contains(md, []byte("#### Series of 8 histograms")) || !bytes.Contains(md, []byte("- By instances: **leak suspected**")) {
		t.Errorf("the Markdown lacks the series:\n%s", md)
	}
	_, _, home := ts.get(t, "/")
	if !bytes.Contains(home, []byte("series: leak suspected")) {
		t.Error("the dashboard does not show the series verdict")
	}

	var steady strings.Builder
	for i := range 7 {
		text, _, _ := jvmHistogramText(fmt.Sprintf("2020-02-25 %02d:00:00", 3+i), jvmSamzaHeap(14))
		steady.WriteString(text)
	}
	up = ts.mustUpload(t, nil, file{"steady.histo", []byte(steady.String())})
	s := jvmGetDoc[doc](t, ts, "/api/reports/"+up.ReportID).Analysis
	if s.Series["instances"].Verdict != "steady" || s.Series["bytes"].Verdict != "steady" || len(s.Suspects) != 0 {
		t.Errorf("a steady heap: %q by instances, %q by bytes, %d suspects", s.Series["instances"].Verdict, s.Series["bytes"].Verdict, len(s.Suspects))
	}
	pg, _ = jvmGetPage(t, ts, up.ReportURL)
	if pg.Find("[data-testid=headline]").HasClass("error") {
		t.Error("a steady heap gets an alarming headline")
	}
}

// TestJavaThreadFixtures uploads every real thread dump and checks the JSON twin
// against grep (the threads of a one-dump file) and against the engine (totals,
// states, the groups shown).
func TestJavaThreadFixtures(t *testing.T) {
	ts := newTestServer(t, Config{})
	for _, name := range []string{"jthreaddump-jstack-deadlock.txt", "sjk-jstack-jdk8-hazelcast-160threads.txt",
		"tda-jdk15-threaddump-with-class-histogram.log", "tda-jstack-jdk21-macos.log", "tda-jstack-jdk8-openjdk.log",
		"tda-threaddump-hpux-jdk15-jeus-large.log"} {
		path := fixtures.Path(t, "jvm", name)
		want := jvmAnalyzeThreadsFile(t, path)
		up := ts.mustUpload(t, nil, fixture(t, "jvm", name))
		if up.Artifacts[0].Kind != string(analyze.KindJVMThreads) {
			t.Errorf("%s: detected %s", name, up.Artifacts[0].Kind)
			continue
		}
		a := jvmGetDoc[jvmThreadsAnalysis](t, ts, "/api/reports/"+up.ReportID).Analysis
		threads := jvmGrepCount(t, `^".*tid=`, path)
		if want.Dumps == 1 && a.Total != threads {
			t.Errorf("%s: %d threads, grep counts %d", name, a.Total, threads)
		}
		gs := snapshot.First(want.Groups.Groups, page.DefaultRows)
		for i := range gs {
			gs[i].Key = "" // not in the JSON
		}
		if a.Total != want.Groups.Total || a.Dumps != want.Dumps || a.GroupCount != len(want.Groups.Groups) ||
			!reflect.DeepEqual(a.States, want.Groups.States) || !reflect.DeepEqual(a.Groups, gs) {
			t.Errorf("%s: %d threads in %d groups over %d dumps; the engine says %d in %d over %d, or the groups differ",
				name, a.Total, a.GroupCount, a.Dumps, want.Groups.Total, len(want.Groups.Groups), want.Dumps)
		}
	}
}
