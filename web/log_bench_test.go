package web

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/store/sqlite"
)

// benchLogSize is the size of the benchmark's container log.
const benchLogSize = 200 << 20

// writeBenchLog writes a Samza container log of about size bytes: mostly
// message traffic, a checkpoint consumer started every 500 lines and stopped
// every 35,000, Kafka consumers started every 50 lines under 30,000 keys and
// stopped every 400, a timestamp on every line.
func writeBenchLog(tb testing.TB, path string, size int64) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	at := time.Date(2020, 2, 25, 3, 0, 0, 0, time.UTC)
	var written int64
	for i := 0; written < size; i++ {
		at = at.Add(10 * time.Millisecond)
		ts := at.Format("2006-01-02 15:04:05.000")
		var n int
		switch {
		case i%35000 == 0:
			n, _ = fmt.Fprintf(w, "%s [main] KafkaCheckpointManager [INFO] Stopping system consumer\n", ts)
		case i%500 == 0:
			n, _ = fmt.Fprintf(w, "%s [main] KafkaCheckpointManager [INFO] Starting the checkpoint SystemConsumer from oldest offset %d\n", ts, i)
		case i%400 == 0:
			n, _ = fmt.Fprintf(w, "%s [main] KafkaSystemConsumer [INFO] kafka:consumer-%d: Stopping Samza kafkaConsumer \n", ts, (i/400)%30000)
		case i%50 == 0:
			n, _ = fmt.Fprintf(w, "%s [main] KafkaSystemConsumer [INFO] kafka:consumer-%d: Consumer started\n", ts, (i/50)%30000)
		default:
			n, _ = fmt.Fprintf(w, "%s [task-%d] StreamTask [INFO] Processing envelope offset %d from SystemStreamPartition [kafka, events, %d]\n", ts, i%8, i, i%32)
		}
		written += int64(n)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// benchUploadFile streams one file with form fields to the server, as a
// browser does, without holding it in memory.
func benchUploadFile(tb testing.TB, srv *Server, path string, fields map[string]string) uploadResponse {
	tb.Helper()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	done := make(chan error, 1)
	go func() {
		err := func() error {
			for k, v := range fields {
				if err := mw.WriteField(k, v); err != nil {
					return err
				}
			}
			part, err := mw.CreateFormFile("file", filepath.Base(path))
			if err != nil {
				return err
			}
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			if _, err := io.Copy(part, f); err != nil {
				return err
			}
			return mw.Close()
		}()
		pw.CloseWithError(err)
		done <- err
	}()
	req := httptest.NewRequest("POST", "/api/artifacts", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	pr.CloseWithError(io.ErrClosedPipe) // unblocks the writer if the server stopped reading
	<-done
	var up uploadResponse
	if rec.Code != 201 || json.Unmarshal(rec.Body.Bytes(), &up) != nil {
		tb.Fatalf("upload: %d %s", rec.Code, rec.Body.Bytes())
	}
	return up
}

// BenchmarkLogReport200MB uploads a 200 MB container log with the SAMZA-2785
// preset (30,000 Kafka consumer keys), then serves its report: the page, JSON,
// Markdown and CSV from the cache, and the page of another parameter set with
// the cache emptied first (counting the stored log again).
func BenchmarkLogReport200MB(b *testing.B) {
	path := filepath.Join(b.TempDir(), "container.log")
	writeBenchLog(b, path, benchLogSize)
	db, err := sqlite.Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	srv, err := NewServer(Config{Store: db, TempDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	up := benchUploadFile(b, srv, path, map[string]string{"preset": "samza-2785"})
	b.Logf("upload of %s (spool, hash, count, store): %v", analyze.FormatBytes(benchLogSize), time.Since(start).Round(time.Millisecond))

	b.Run("page", func(b *testing.B) { serveBench(b, srv, up.ReportURL, nil) })
	b.Run("page-all-keys", func(b *testing.B) { serveBench(b, srv, up.ReportURL+"?n=all", nil) })
	b.Run("json", func(b *testing.B) { serveBench(b, srv, "/api/reports/"+up.ReportID, nil) })
	b.Run("markdown", func(b *testing.B) { serveBench(b, srv, up.ReportURL+".md", nil) })
	b.Run("csv", func(b *testing.B) { serveBench(b, srv, up.ReportURL+"/keys.csv", nil) })
	b.Run("page-uncached", func(b *testing.B) {
		b.SetBytes(benchLogSize)
		serveBench(b, srv, up.ReportURL+"?p1=Processing+envelope&p2=%5C%5Bkafka%2C+events%2C+1%5B0-9%5D%5C%5D&re2=1&preset=samza-2785", srv.caches.Clear)
	})
}
