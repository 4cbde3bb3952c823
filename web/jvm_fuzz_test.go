package web

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/a-h/templ"

	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/internal/jvmtext"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/classhist"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/snapshot"
	"github.com/leakui/leakui/web/view"
)

// jvmRenderPage renders a page component inside the layout, as s.render does.
func jvmRenderPage(t *testing.T, c templ.Component) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := view.Layout(view.Page{Title: "fuzz"}).Render(templ.WithChildren(context.Background(), c), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// jvmFuzzReport is a report of one artifact holding n snapshots, as a page builder
// sees it (the store is not involved).
func jvmFuzzReport(n int) (*store.Report, []snapshot.Ref) {
	rep := &store.Report{ID: "fuzz", Params: []byte(`{}`), Artifacts: []store.ReportArtifact{{Name: "fuzz.txt"}, {Name: "other.txt"}}}
	refs := make([]snapshot.Ref, n)
	for i := range refs {
		refs[i] = snapshot.Ref{File: i % 2, Index: i}
	}
	return rep, refs
}

// jvmFuzzQueries are the views every page is built in.
var jvmFuzzQueries = []string{"/r/fuzz", "/r/fuzz?n=all&sort=instances", "/r/fuzz?snapshot=0", "/r/fuzz?base=1&target=0&n=3"}

// FuzzJavaPages feeds arbitrary text to the JVM parsers (the native memory and thread dump
// pages: web/jvm's FuzzNMTPages and FuzzThreadPages) and builds and renders every
// page the web shows for what they accept (one snapshot, the diff, each alone, all
// rows, by instances): no panic, and the HTML is valid UTF-8 whatever bytes the
// input holds. The HTTP path around it is covered by the upload tests; fuzzing it
// whole would spend its time in the SQLite store.
func FuzzJavaPages(f *testing.F) {
	histo, _, _ := jvmHistogramText("2020-02-25 03:21:02", jvmSamzaHeap(3))
	histo2, _, _ := jvmHistogramText("2020-02-25 04:21:02", jvmSamzaHeap(30))
	dump := jvmtext.Dump("2020-02-25 03:21:02", append(jvmContainerThreads(), jvmPollThreads(2)...))
	nmt, _, _ := jvmNMTSummaryText("", jvmKafkaBroker(100))
	diff, _ := jvmNMTDiffText(jvmKafkaBroker(0), jvmKafkaBroker(100000))
	for _, s := range []string{histo, histo + histo2, dump, dump + dump, nmt, nmt + nmt, diff} {
		f.Add(s)
	}
	f.Add(" num #instances #bytes class name\n 1: 1 1 \xff\xfe<script>\u2028\nTotal 1 1\n")
	f.Add("\"a\xc5\" tid=0x1 nid=0x2 runnable\n\tat x.y(Z.java:1)\n\t- locked <0x1> (a \"q\")\n\nFound one Java-level deadlock:\n\"a\xc5\":\n  waiting to lock x,\n  which is held by \"b\"\n")
	f.Fuzz(func(t *testing.T, text string) {
		check := func(what string, c templ.Component) {
			if html := jvmRenderPage(t, c); !utf8.Valid(html) {
				t.Fatalf("the %s page is not valid UTF-8", what)
			}
		}
		queries := func(n int) []snapshot.Query {
			var out []snapshot.Query
			for _, u := range jvmFuzzQueries {
				if q, err := snapshot.ParseQuery(httptest.NewRequest("GET", u, nil), n); err == nil {
					out = append(out, q)
				}
			}
			return out
		}
		if hs, err := jvm.ParseHistograms(strings.NewReader(text)); err == nil {
			hs = append(hs, hs[0]) // a diff even of one histogram
			rep, refs := jvmFuzzReport(len(hs))
			for _, q := range queries(len(hs)) {
				set := &classhist.Histograms{Set: &snapshot.Set[*jvm.Histogram]{Rep: rep, Items: hs, Refs: refs, Q: q}, Cache: kind.NewCache[snapshot.Entry](16)}
				if i, ok := set.Single(); ok {
					check("histogram", view.JVMHistogramPageView(set.Page(i)))
				} else {
					check("histogram diff", view.JVMHistogramDiffPageView(set.DiffPage()))
				}
			}
		}
	})
}
