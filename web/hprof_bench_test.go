package web

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze/hprof"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/store/sqlite"
	"github.com/leakui/leakui/web/heapdumps"
	"github.com/leakui/leakui/web/page"
)

// BenchmarkHeapDumpComparePage serves the comparison of two real heap dumps of
// LeakShape (2 and 8 consumers) as a page and as JSON, and, as the anchor, the
// histogram diff page of jcmd's class histograms of the same two heaps: a
// comparison is the same diff with the retained sizes beside it, read from the
// stored summary rather than parsed from files.
func BenchmarkHeapDumpComparePage(b *testing.B) {
	srv := jvmBenchServer(b)
	small, _, smallText := leakShapeRunText(b, 2, 64<<10)
	large, _, largeText := leakShapeRunText(b, 8, 64<<10)
	dumps := jvmBenchUpload(b, srv, small, large)
	histos := jvmBenchUpload(b, srv, file{"small.histo", smallText}, file{"large.histo", largeText})
	b.Run("dumps", func(b *testing.B) { jvmBenchPage(b, srv, dumps) })
	b.Run("dumps-json", func(b *testing.B) { jvmBenchPage(b, srv, strings.Replace(dumps, "/r/", "/api/reports/", 1)) })
	b.Run("histograms", func(b *testing.B) { jvmBenchPage(b, srv, histos) })
}

// BenchmarkHeapDominators pages the dominator tree of a real heap dump of
// LeakShape (30 consumers) from the stored index, as the page's expand buttons
// and the API do, and, as the anchor, analyzes the dump again (what a server
// without the index would do to page the tree past the levels its summary
// keeps).
func BenchmarkHeapDominators(b *testing.B) {
	db, err := sqlite.Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	srv, err := NewServer(Config{Store: db, TempDir: b.TempDir(), Jobs: testJobs(b, db)})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	dump, _, _ := leakShapeRunText(b, 30, 4096)
	rec := postFiles(b, srv, nil, dump)
	var up uploadResponse
	if rec.Code != http.StatusAccepted || json.Unmarshal(rec.Body.Bytes(), &up) != nil {
		b.Fatalf("upload: %d %s", rec.Code, rec.Body)
	}
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		rep, err := db.Report(context.Background(), up.ReportID)
		if err != nil || rep.Status == store.ReportFailed || time.Now().After(deadline) {
			b.Fatalf("the analysis: %v %+v", err, rep)
		}
		if rep.Status == store.ReportReady {
			break
		}
	}
	src := heapdumps.DomURL(up.ReportID)
	for _, c := range []struct{ name, path string }{
		{"root-json", src + ".json?node=root"},
		{"root-fragment", src + "?node=root&fragment=1"},
		{"root-page-2-json", src + ".json?node=root&offset=25"},
		{"report-page", page.ReportURL(up.ReportID)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				jvmBenchGet(b, srv, c.path)
			}
		})
	}
	path := filepath.Join(b.TempDir(), "dump.hprof")
	if err := os.WriteFile(path, dump.data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("anchor-reanalyze", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			h, err := hprof.Open(path, hprof.OpenOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := h.NewReport(hprof.ReportOptions{Top: heapdumps.Rows}, nil); err != nil {
				b.Fatal(err)
			}
			h.Close()
		}
	})
}
