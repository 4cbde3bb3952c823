package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// memStats is the part of /debug/vars memstats the tests read.
type memStats struct {
	HeapSys   uint64 // the runtime's estimate of the largest size the heap has had
	HeapInuse uint64
	HeapAlloc uint64
	NumGC     uint32
}

// debugVars reads the server's own memory statistics from -debug-pprof.
func (s *server) memStats(t testing.TB) memStats {
	t.Helper()
	resp, err := http.Get(s.debug + "/debug/vars")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v struct {
		Memstats memStats `json:"memstats"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatalf("/debug/vars: %v", err)
	}
	return v.Memstats
}

// collectGarbage makes the server run a garbage collection (the heap profile's
// gc=1 does).
func (s *server) collectGarbage(t testing.TB) {
	t.Helper()
	resp, err := http.Get(s.debug + "/debug/pprof/heap?gc=1")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// heapWatch polls the server's heap in use while a request runs and keeps the
// largest value seen (HeapSys, which never shrinks, bounds what polling misses).
type heapWatch struct {
	stop chan struct{}
	done chan struct{}
	max  uint64
}

func (s *server) watchHeap(t testing.TB) *heapWatch {
	w := &heapWatch{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		client := &http.Client{Timeout: 5 * time.Second}
		for {
			if resp, err := client.Get(s.debug + "/debug/vars"); err == nil {
				var v struct {
					Memstats memStats `json:"memstats"`
				}
				json.NewDecoder(resp.Body).Decode(&v)
				resp.Body.Close()
				w.max = max(w.max, v.Memstats.HeapInuse)
			}
			select {
			case <-w.stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return w
}

// end stops the watch and returns the largest heap in use seen.
func (w *heapWatch) end() uint64 {
	close(w.stop)
	<-w.done
	return w.max
}

// storeCounts counts the rows of a store while its server runs (SQLite in WAL
// mode lets another process read).
type storeCounts struct{ artifacts, chunks, reports int }

func countStore(t testing.TB, dataDir string) storeCounts {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dataDir, "leakui.db")+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var c storeCounts
	for q, dst := range map[string]*int{
		`SELECT COUNT(*) FROM artifacts`:       &c.artifacts,
		`SELECT COUNT(*) FROM artifact_chunks`: &c.chunks,
		`SELECT COUNT(*) FROM reports`:         &c.reports,
	} {
		if err := db.QueryRow(q).Scan(dst); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return c
}

// spooled lists the upload spool files the servers of a data directory hold
// (in their own directories under uploads/, lock files aside).
func spooled(t testing.TB, dataDir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dataDir, "uploads", "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(files, func(f string) bool { return filepath.Base(f) == spoolLockName })
}

// part is one part of a multipart upload: a file (name and content, or a path to
// read it from) or, with field set, a form field.
type part struct {
	field, name string
	data        []byte
	path        string
}

// multipartUpload builds an upload body.
func multipartUpload(t testing.TB, parts ...part) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		if p.field != "" {
			mw.WriteField(p.field, string(p.data))
			continue
		}
		w, err := mw.CreateFormFile("file", p.name)
		if err != nil {
			t.Fatal(err)
		}
		data := p.data
		if p.path != "" {
			if data, err = os.ReadFile(p.path); err != nil {
				t.Fatal(err)
			}
		}
		w.Write(data)
	}
	mw.Close()
	return buf.Bytes(), mw.FormDataContentType()
}

// uploadAnswer is the server's answer to POST /api/artifacts.
type uploadAnswer struct {
	Status    int    `json:"-"` // the HTTP status (a heap dump's answer has a "status" of its own)
	Error     string `json:"error"`
	ReportID  string `json:"report_id"`
	ReportURL string `json:"report_url"`
	Verdict   string `json:"verdict"`
	Artifacts []struct {
		SHA256 string `json:"sha256"`
		Name   string `json:"name"`
		Kind   string `json:"kind"`
		Size   int64  `json:"size"`
	} `json:"artifacts"`
	Raw string `json:"-"`
}

// send posts a body to /api/artifacts within a deadline.
func (s *server) send(t testing.TB, body io.Reader, contentType string, length int64, within time.Duration) (uploadAnswer, time.Duration) {
	t.Helper()
	req, err := http.NewRequest("POST", s.base+"/api/artifacts", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	if length >= 0 {
		req.ContentLength = length
	}
	client := &http.Client{Timeout: within}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("POST /api/artifacts: %v (after %s)", err, time.Since(start))
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	elapsed := time.Since(start)
	var a uploadAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Errorf("the answer is not JSON (%d): %.200s", resp.StatusCode, raw)
	}
	a.Status, a.Raw = resp.StatusCode, string(raw)
	return a, elapsed
}

// corpusTable collects the rows of the hostile-corpus table for the test log.
type corpusTable struct {
	mu   sync.Mutex
	rows []string
}

func (c *corpusTable) add(input string, status int, message string, elapsed time.Duration, peak uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	message = strings.ReplaceAll(message, "|", `\|`)
	if len(message) > 140 {
		message = message[:140] + "…"
	}
	c.rows = append(c.rows, fmt.Sprintf("| %s | %d | %s | %s | %d MiB |", input, status, message, elapsed.Round(time.Millisecond), peak>>20))
}

func (c *corpusTable) String() string {
	return "| input | status | message | time | heap in use, peak |\n|---|---:|---|---:|---:|\n" + strings.Join(c.rows, "\n")
}
