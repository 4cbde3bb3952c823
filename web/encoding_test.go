package web

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/greptest"
)

// TestUploadUTF16ThreadDumps uploads the UTF-16LE and UTF-16BE copies of a jstack
// dump: each is a thread dump (not binary data, 415) of as many threads as `iconv
// -f UTF-16 -t UTF-8 | grep -c '^"'` counts, grouped as the UTF-8 original, and
// the upload's JSON and the page say the file was UTF-16.
func TestUploadUTF16ThreadDumps(t *testing.T) {
	ts := newTestServer(t, Config{})
	orig := ts.mustUpload(t, nil, fixture(t, "jvm", "tda-jstack-jdk8-openjdk.log"))
	want := jvmGetDoc[jvmThreadsAnalysis](t, ts, "/api/reports/"+orig.ReportID).Analysis
	for name, enc := range map[string]string{
		"tda-jstack-jdk8-openjdk-utf16le.log": analyze.EncodingUTF16LE,
		"tda-jstack-jdk8-openjdk-utf16be.log": analyze.EncodingUTF16BE,
	} {
		threads := greptest.CountWith(t, "-a", "--", `^"`, greptest.UTF8Copy(t, "UTF-16", fixtures.Path(t, "jvm", name)))
		up := ts.mustUpload(t, nil, fixture(t, "jvm", name))
		a := up.Artifacts[0]
		if a.Kind != string(analyze.KindJVMThreads) || a.Encoding != enc || a.Format != "thread dump" {
			t.Errorf("%s: uploaded as %+v", name, a)
		}
		got := jvmGetDoc[jvmThreadsAnalysis](t, ts, "/api/reports/"+up.ReportID).Analysis
		if int64(got.Total) != threads || threads == 0 || !reflect.DeepEqual(got.Groups, want.Groups) {
			t.Errorf("%s: %d threads, iconv + grep count %d, or the groups differ from the UTF-8 file's", name, got.Total, threads)
		}
		if pg := goroutinePage(t, ts, up.ReportURL); !strings.Contains(pg.Find("body").Text(), enc) {
			t.Errorf("%s: the page does not say %s", name, enc)
		}
	}
}

// TestUploadUTF16Log uploads a real log in UTF-16LE: the counts are grep's on the
// UTF-8 text, and the page says the file was UTF-16.
func TestUploadUTF16Log(t *testing.T) {
	ts := newTestServer(t, Config{})
	path := fixtures.Path(t, "logs", "loghub-HDFS_2k.log")
	utf8Text := fixture(t, "logs", "loghub-HDFS_2k.log").data
	raw := []byte{0xff, 0xfe}
	for _, r := range string(utf8Text) { // the log is ASCII: one code unit a rune
		raw = append(raw, byte(r), byte(r>>8))
	}
	patterns := []logs.Pattern{logs.Literal("INFO"), logs.Literal("WARN"), logs.Regexp(`blk_-?[0-9]+$`)}
	up := ts.mustUpload(t, logFields(patterns, nil), file{name: "hdfs-utf16.log", data: raw})
	if a := up.Artifacts[0]; a.Kind != string(analyze.KindLog) || a.Encoding != analyze.EncodingUTF16LE {
		t.Fatalf("uploaded as %+v", a)
	}
	doc, _ := logGetJSON(t, ts, "/api/reports/"+up.ReportID)
	rep := doc.Analysis.Report
	if want := logGrepLines(t, path); rep.Lines != want {
		t.Errorf("%d lines, grep counts %d", rep.Lines, want)
	}
	for i, p := range patterns {
		if want := logGrepCount(t, p, path); rep.Patterns[i].Count != want {
			t.Errorf("%v: %d, grep counts %d", p, rep.Patterns[i].Count, want)
		}
	}
	pg, _ := logGetPage(t, ts, up.ReportURL)
	if got := pg.Find("[data-testid=file-compression]").Text(); !strings.Contains(got, "UTF-16LE") {
		t.Errorf("the page says %q of the file's encoding", got)
	}
}

// goroutineGroupsOf uploads a goroutine dump and returns its report's groups.
func goroutineGroupsOf(t *testing.T, ts *testServer, f file) ([]goroutineGroupDoc, uploadResponse) {
	t.Helper()
	up := ts.mustUpload(t, nil, f)
	doc := goroutineReportDoc(t, ts, "/api/reports/"+up.ReportID+"?n=all")
	if doc.Kind != "goroutines" {
		t.Fatalf("%s: a %s report", f.name, doc.Kind)
	}
	return doc.Analysis.Groups, up
}

// TestUploadPrefixedDumps uploads dumps as SREs get them: a debug=2 goroutine dump
// and a jstack dump with `kubectl logs --timestamps` prefixes, and a SIGQUIT dump 5
// MB into a container log. Each gives the groups of the bare dump, and the page
// says what was stripped or skipped.
func TestUploadPrefixedDumps(t *testing.T) {
	ts := newTestServer(t, Config{})
	debug2 := fixture(t, "goroutines", "goprofnotes-snap2-debug2.txt")
	want, _ := goroutineGroupsOf(t, ts, debug2)
	got, up := goroutineGroupsOf(t, ts, file{name: "kubectl.log", data: fixtures.Kubectl(debug2.data)})
	if len(want) == 0 || !reflect.DeepEqual(got, want) || up.Artifacts[0].Prefix != analyze.PrefixKubectl {
		t.Errorf("kubectl prefixes: %d groups (want %d), uploaded as %+v", len(got), len(want), up.Artifacts[0])
	}
	if pg := goroutinePage(t, ts, up.ReportURL); !strings.Contains(pg.Find("body").Text(), "kubectl logs --timestamps prefixes stripped") {
		t.Error("the page does not say the kubectl prefixes were stripped")
	}

	sigquit := append([]byte("SIGQUIT: quit\nPC=0x46e4e1 m=0 sigcode=0\n\n"), debug2.data...)
	want, _ = goroutineGroupsOf(t, ts, file{name: "sigquit.txt", data: sigquit})
	before := fixtures.ContainerLog(5 << 20)
	container := bytes.Join([][]byte{before, sigquit, fixtures.ContainerLog(4 << 10)}, nil)
	got, up = goroutineGroupsOf(t, ts, file{name: "container.log", data: container})
	lines := int64(bytes.Count(before, []byte("\n")))
	if a := up.Artifacts[0]; !reflect.DeepEqual(got, want) || a.Format != "SIGQUIT" || a.SkippedLines != lines || a.SkippedBytes != int64(len(before)) {
		t.Errorf("SIGQUIT in a container log: %d groups (want %d), uploaded as %+v", len(got), len(want), a)
	}
	if pg := goroutinePage(t, ts, up.ReportURL); !strings.Contains(pg.Find("body").Text(), analyze.FormatCount(lines)+" lines (5.0 MB) of log before the dump skipped") {
		t.Error("the page does not say the log before the dump was skipped")
	}

	jstack := fixture(t, "jvm", "sjk-jstack-jdk8-hazelcast-160threads.txt")
	bare := ts.mustUpload(t, nil, jstack)
	wantJVM := jvmGetDoc[jvmThreadsAnalysis](t, ts, "/api/reports/"+bare.ReportID).Analysis
	up = ts.mustUpload(t, nil, file{name: "kubectl-jstack.log", data: fixtures.Kubectl(jstack.data)})
	gotJVM := jvmGetDoc[jvmThreadsAnalysis](t, ts, "/api/reports/"+up.ReportID).Analysis
	if a := up.Artifacts[0]; a.Kind != string(analyze.KindJVMThreads) || a.Prefix != analyze.PrefixKubectl ||
		gotJVM.Total != wantJVM.Total || !reflect.DeepEqual(gotJVM.Groups, wantJVM.Groups) {
		t.Errorf("jstack with kubectl prefixes: %d threads (want %d), uploaded as %+v", gotJVM.Total, wantJVM.Total, a)
	}
	if pg := goroutinePage(t, ts, up.ReportURL); !strings.Contains(pg.Find("body").Text(), "kubectl logs --timestamps prefixes stripped") {
		t.Error("the JVM page does not say the kubectl prefixes were stripped")
	}
}
