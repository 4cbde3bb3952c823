package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/leakui/leakui/store/sqlite"
)

// benchDump50k is the 50,000-goroutine dump of bench/goroutines-vs-pp.sh (bench/gendump) when
// it has been generated, else a dump of the same size written here.
func benchDump50k(b *testing.B) []byte {
	b.Helper()
	for _, path := range []string{os.Getenv("LEAKUI_BENCH_DUMP"), "/tmp/leakui-bench/dump-50k.txt"} {
		if path == "" {
			continue
		}
		if data, err := os.ReadFile(path); err == nil {
			return data
		}
	}
	return synthDump(50000, 1000)
}

// synthDump writes a debug=2 dump of n goroutines spread over stacks distinct
// stacks of 20 frames, with wait times and creators, as the runtime prints them.
func synthDump(n, stacks int) []byte {
	var b bytes.Buffer
	states := []string{"chan receive", "select", "IO wait", "sync.Cond.Wait"}
	for id := 1; id <= n; id++ {
		s := id % stacks
		fmt.Fprintf(&b, "goroutine %d [%s, %d minutes]:\n", id, states[s%len(states)], id%7)
		for d := range 20 {
			fmt.Fprintf(&b, "example.com/svc/pkg%d.handler%d(0xc000%x)\n\t/src/svc/pkg%d/h.go:%d +0x%x\n", d, (s>>uint(d%10))&3, id, d, 10+d+s, d)
		}
		fmt.Fprintf(&b, "created by example.com/svc.start in goroutine %d\n\t/src/svc/start.go:%d +0x1d\n\n", 1+s%3, s)
	}
	return b.Bytes()
}

// benchServer is a server on a real SQLite store with one uploaded report.
func benchServer(b *testing.B, files ...file) (*Server, uploadResponse) {
	b.Helper()
	db, err := sqlite.Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	srv, err := NewServer(Config{Store: db, TempDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	rec := postFiles(b, srv, nil, files...)
	var up uploadResponse
	if rec.Code != 201 || json.Unmarshal(rec.Body.Bytes(), &up) != nil {
		b.Fatalf("upload: %d %s", rec.Code, rec.Body.Bytes())
	}
	return srv, up
}

// serveBench requests path b.N times and reports the response size.
func serveBench(b *testing.B, srv *Server, path string, setup func()) {
	b.Helper()
	var size int
	for b.Loop() {
		if setup != nil {
			b.StopTimer()
			setup()
			b.StartTimer()
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body.Bytes())
		}
		size = rec.Body.Len()
	}
	b.ReportMetric(float64(size), "bytes/page")
}

// BenchmarkGoroutinePage50k serves the report of a 50,000-goroutine dump: the
// page (50 groups, and all of them), its JSON twin, and the page with the caches
// emptied first (reading the artifact from the store, parsing and grouping it).
func BenchmarkGoroutinePage50k(b *testing.B) {
	srv, up := benchServer(b, file{name: "dump-50k.txt", data: benchDump50k(b)})
	b.Run("page", func(b *testing.B) { serveBench(b, srv, up.ReportURL, nil) })
	b.Run("page-all-groups", func(b *testing.B) { serveBench(b, srv, up.ReportURL+"?n=all", nil) })
	b.Run("json", func(b *testing.B) { serveBench(b, srv, "/api/reports/"+up.ReportID, nil) })
	b.Run("markdown", func(b *testing.B) { serveBench(b, srv, up.ReportURL+".md", nil) })
	b.Run("page-uncached", func(b *testing.B) {
		serveBench(b, srv, up.ReportURL, srv.caches.Clear)
	})
}

// BenchmarkGoroutineDiffPage50k serves the comparison of two 50,000-goroutine
// dumps whose stacks differ.
func BenchmarkGoroutineDiffPage50k(b *testing.B) {
	srv, up := benchServer(b, file{name: "base.txt", data: synthDump(50000, 900)}, file{name: "target.txt", data: synthDump(50000, 1000)})
	b.Run("page", func(b *testing.B) { serveBench(b, srv, up.ReportURL, nil) })
}

// BenchmarkGoroutineUpload50k uploads the dump: spooling, hashing, parsing,
// grouping for the summary and storing.
func BenchmarkGoroutineUpload50k(b *testing.B) {
	data := benchDump50k(b)
	db, err := sqlite.Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	srv, err := NewServer(Config{Store: db, TempDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for i := 0; b.Loop(); i++ {
		// A different byte each time, so the store and the caches see a new file.
		body, ct := multipartBody(b, []file{{name: "d.txt", data: append([]byte(fmt.Sprintf("# %d\n", i)), data...)}}, nil)
		req := httptest.NewRequest("POST", "/api/artifacts", body)
		req.Header.Set("Content-Type", ct)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != 201 {
			b.Fatalf("upload: %d %s", rec.Code, rec.Body.Bytes())
		}
	}
}
