package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/pgtest"
)

// loadClients is how many clients the load generator runs at once.
const loadClients = 8

// BenchmarkServeThroughput measures uploads and report views per second against
// real `leakui serve` processes on loopback: one replica on SQLite, one and two
// replicas on PostgreSQL (LEAKUI_TEST_POSTGRES). Requests go round-robin over the
// replicas from loadClients clients; every request must succeed. Each upload is a
// real 130 kB heap profile made unique by an empty gzip member (a new artifact,
// parsed and stored each time); each view is GET /api/reports/{id} of a 430 kB
// heap profile's report. Run it with a
// bounded count, such as -benchtime=400x.
func BenchmarkServeThroughput(b *testing.B) {
	upload, err := os.ReadFile(fixtures.Path(b, "pprof", "flameshow-heap.pb.gz"))
	if err != nil {
		b.Fatal(err)
	}
	heap := fixtures.Path(b, "pprof", "erigon-integration-heap.pb.gz")
	for _, cfg := range []struct {
		name     string
		replicas int
		postgres bool
	}{{"sqlite-1", 1, false}, {"postgres-1", 1, true}, {"postgres-2", 2, true}} {
		b.Run(cfg.name, func(b *testing.B) {
			dsn := ""
			if cfg.postgres {
				dsn = pgtest.DSN(b)
			}
			dir := b.TempDir()
			var bases []string
			for range cfg.replicas {
				args := []string{"-upload-rate", "-1", "-lab=false"}
				if dsn != "" {
					args = append(args, "-db", dsn)
				}
				bases = append(bases, startServer(b, dir, args...).base)
			}
			client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: loadClients}}
			b.Cleanup(client.CloseIdleConnections)
			// The report to view, made on the first replica and viewed once on
			// each so that every replica has parsed the profile.
			status, link := uploadFile(b, bases[0], heap)
			if status != http.StatusCreated {
				b.Fatalf("upload: %d", status)
			}
			view := strings.Replace(link, "/r/", "/api/reports/", 1)
			for _, base := range bases {
				if err := get(client, base+view); err != nil {
					b.Fatal(err)
				}
			}
			var seq atomic.Int64
			b.Run("upload", func(b *testing.B) {
				load(b, bases, func(base string) error {
					n := seq.Add(1)
					return post(client, base, fmt.Sprintf("heap-%d.pb.gz", n), unique(upload, n))
				})
			})
			b.Run("view", func(b *testing.B) {
				load(b, bases, func(base string) error { return get(client, base+view) })
			})
		})
	}
}

// load makes b.N requests from loadClients clients, round-robin over the
// replicas, and reports requests per second.
func load(b *testing.B, bases []string, request func(base string) error) {
	var next atomic.Int64
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range loadClients {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) || failed.Load() != nil {
					return
				}
				if err := request(bases[i%int64(len(bases))]); err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if err := failed.Load(); err != nil {
		b.Fatal(*err)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
}

func get(c *http.Client, url string) error {
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %d", url, resp.StatusCode)
	}
	return nil
}

func post(c *http.Client, base, name string, data []byte) error {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	w, _ := mw.CreateFormFile("file", name)
	w.Write(data)
	mw.Close()
	resp, err := c.Post(base+"/api/artifacts", mw.FormDataContentType(), &body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("upload: %d %s", resp.StatusCode, msg)
	}
	return nil
}

// unique appends to a gzipped profile an empty gzip member named after n: other
// bytes (a new artifact), the same profile once decompressed.
func unique(gz []byte, n int64) []byte {
	var tail bytes.Buffer
	zw := gzip.NewWriter(&tail)
	zw.Name = fmt.Sprintf("load-%d", n)
	zw.Close()
	return append(bytes.Clone(gz), tail.Bytes()...)
}
