package web

import (
	"bytes"
	"strings"
	"testing"

	webbundles "github.com/leakui/leakui/web/bundles"

	webjvm "github.com/leakui/leakui/web/jvm"

	webprofiles "github.com/leakui/leakui/web/profiles"

	webgoroutines "github.com/leakui/leakui/web/goroutines"

	weblogs "github.com/leakui/leakui/web/logs"

	"github.com/PuerkitoBio/goquery"

	"github.com/leakui/leakui/analyze"
)

// TestAcceptedKindsInOrder checks the upload page's "What can I upload?" list: one
// line per kind of evidence, pprof profiles first, then goroutine dumps, the JVM's
// four outputs, capture bundles and logs last, the same order as the
// unsupported-kind message.
func TestAcceptedKindsInOrder(t *testing.T) {
	ts := newTestServer(t, Config{})
	status, _, body := ts.get(t, "/")
	if status != 200 {
		t.Fatalf("GET / answered %d", status)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var items []string
	doc.Find(`[data-testid="accepted-kinds"] li`).Each(func(_ int, li *goquery.Selection) {
		items = append(items, li.Text())
	})
	want := []string{"pprof profiles:", "Go goroutine dumps:", "JVM class histograms:", "JVM thread dumps:", "JVM native memory tracking:", "JVM heap dumps:", "leakui capture bundles", "Logs:"}
	if len(items) != len(want) {
		t.Fatalf("the upload page lists %d kinds, want %d: %q", len(items), len(want), items)
	}
	for i, w := range want {
		if !strings.HasPrefix(items[i], w) {
			t.Errorf("kind %d is %q, want it to start with %q", i+1, items[i], w)
		}
	}
	reg := ts.srv.kinds
	if strings.Join(reg.Accepted(), "\n") != strings.Join(items, "\n") {
		t.Errorf("the page and the registry disagree:\npage %q\nregistry %q", items, reg.Accepted())
	}
	for _, k := range []analyze.Kind{analyze.KindProfile, analyze.KindGoroutines, analyze.KindLog, analyze.KindJVMHistogram, analyze.KindJVMThreads, analyze.KindJVMNMT, analyze.KindJVMHeapDump, analyze.KindCapture} {
		if _, ok := reg.Planner(k); !ok {
			t.Errorf("no planner for %s", k)
		}
	}
	for _, k := range []string{webprofiles.ReportSingle, webprofiles.ReportDiff, webprofiles.ReportSeries, webgoroutines.ReportKind, webgoroutines.ReportKindDiff, weblogs.ReportKind, kindRun,
		webjvm.ReportHistogram, webjvm.ReportHistogramDiff, webjvm.ReportThreads, webjvm.ReportThreadsDiff, webjvm.ReportNMT, webjvm.ReportNMTDiff, webbundles.ReportKind} {
		if _, ok := reg.For(k); !ok {
			t.Errorf("report kind %s has no views", k)
		}
	}
}
