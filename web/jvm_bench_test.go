package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/leakui/leakui/internal/jvmtext"
	"github.com/leakui/leakui/store/sqlite"
)

// jvmBenchServer is a real server on a real SQLite store, called in process.
func jvmBenchServer(tb testing.TB) *Server {
	tb.Helper()
	db, err := sqlite.Open(context.Background(), tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	srv, err := NewServer(Config{Store: db, TempDir: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	return srv
}

// jvmBenchUpload posts files and returns the report's URL.
func jvmBenchUpload(b *testing.B, srv *Server, files ...file) string {
	b.Helper()
	rec := postFiles(b, srv, nil, files...)
	var up uploadResponse
	if rec.Code != http.StatusCreated || json.Unmarshal(rec.Body.Bytes(), &up) != nil {
		b.Fatalf("upload: %d %s", rec.Code, rec.Body)
	}
	return up.ReportURL
}

// jvmBenchGet serves one GET and fails on anything but 200.
func jvmBenchGet(b *testing.B, srv *Server, path string) int {
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	if rec.Code != http.StatusOK {
		b.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
	}
	return rec.Body.Len()
}

// jvmBenchPage measures a page: warm (the parsed files cached, as for every view but
// the first) and cold (read from SQLite and parsed again on every request).
func jvmBenchPage(b *testing.B, srv *Server, path string) {
	for _, cold := range []bool{false, true} {
		name := "warm"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			jvmBenchGet(b, srv, path)
			b.ReportAllocs()
			size := 0
			for b.Loop() {
				if cold {
					srv.jvmParsed.Clear()
				}
				size = jvmBenchGet(b, srv, path)
			}
			b.ReportMetric(float64(size), "html-bytes")
		})
	}
}

// BenchmarkJavaHistogramPage50k serves the page of a 50,000-row histogram: the
// default 50 rows and all of them.
func BenchmarkJavaHistogramPage50k(b *testing.B) {
	srv := jvmBenchServer(b)
	url := jvmBenchUpload(b, srv, file{"big.histo", []byte(jvmtext.BigHistogram(50_000, 0))})
	b.Run("top50", func(b *testing.B) { jvmBenchPage(b, srv, url) })
	b.Run("all", func(b *testing.B) { jvmBenchPage(b, srv, url+"?n=all") })
	b.Run("json", func(b *testing.B) { jvmBenchPage(b, srv, strings.Replace(url, "/r/", "/api/reports/", 1)) })
}

// BenchmarkJavaHistogramDiffPage50k serves the diff of two 50,000-row histograms.
func BenchmarkJavaHistogramDiffPage50k(b *testing.B) {
	srv := jvmBenchServer(b)
	url := jvmBenchUpload(b, srv, file{"a.histo", []byte(jvmtext.BigHistogram(50_000, 0))}, file{"b.histo", []byte(jvmtext.BigHistogram(50_000, 5000))})
	b.Run("top50", func(b *testing.B) { jvmBenchPage(b, srv, url) })
}

// BenchmarkJavaHistogramSeriesPage50k serves a series of eight 50,000-row
// histograms: the diff of the first and the last and the series analysis by
// application instances and by bytes.
func BenchmarkJavaHistogramSeriesPage50k(b *testing.B) {
	srv := jvmBenchServer(b)
	var files []file
	for i := range 8 {
		files = append(files, file{fmt.Sprintf("h%d.histo", i), []byte(jvmtext.BigHistogram(50_000, int64(i)*500))})
	}
	url := jvmBenchUpload(b, srv, files...)
	b.Run("top50", func(b *testing.B) { jvmBenchPage(b, srv, url) })
}

// BenchmarkJavaHistogramUpload50k uploads a 50,000-row histogram: receive, detect,
// parse, store, answer.
func BenchmarkJavaHistogramUpload50k(b *testing.B) {
	srv := jvmBenchServer(b)
	f := file{"big.histo", []byte(jvmtext.BigHistogram(50_000, 0))}
	b.SetBytes(int64(len(f.data)))
	for b.Loop() {
		jvmBenchUpload(b, srv, f)
	}
}

// BenchmarkJavaThreadsPage5000 serves the page of a 5,000-thread dump, and the diff
// of two.
func BenchmarkJavaThreadsPage5000(b *testing.B) {
	srv := jvmBenchServer(b)
	dump := jvmtext.BigDump(5000)
	url := jvmBenchUpload(b, srv, file{"big.jstack", []byte(dump)})
	b.Run("top50", func(b *testing.B) { jvmBenchPage(b, srv, url) })
	b.Run("all", func(b *testing.B) { jvmBenchPage(b, srv, url+"?n=all") })
	diff := jvmBenchUpload(b, srv, file{"a.jstack", []byte(jvmtext.BigDump(4000))}, file{"b.jstack", []byte(dump)})
	b.Run("diff", func(b *testing.B) { jvmBenchPage(b, srv, diff) })
}
