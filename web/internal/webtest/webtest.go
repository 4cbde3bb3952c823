// Package webtest holds what the web's tests share: a real server on a real
// SQLite store in a temporary directory, its job runner, uploads, fetches,
// waiting for a heap dump's background analysis, and the real JDK's heap
// dumps. It imports no package of the web but shared ones, so that the web
// root's own tests (which cannot import a package that imports the root) use
// it too; the server is made by a function the test passes (the root's
// NewServer).
package webtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/hostile"
	"github.com/leakui/leakui/internal/javatest"
	"github.com/leakui/leakui/jobs"
	jobspostgres "github.com/leakui/leakui/jobs/postgres"
	jobssqlite "github.com/leakui/leakui/jobs/sqlite"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/store/postgres"
	"github.com/leakui/leakui/store/sqlite"
	"github.com/leakui/leakui/web/background"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
)

// Handler is a server under test as the web root's NewServer makes one.
type Handler interface {
	http.Handler
	BeginShutdown()
	Close() error
}

// Env is what a test's server is made over: the store, a spool directory
// and a job runner over the store's database, not started.
type Env struct {
	DB      *store.DB
	TempDir string
	Jobs    *jobs.Runner
}

// Server is a server under test, served over HTTP, and its store.
type Server struct {
	*httptest.Server
	DB *store.DB
}

// Start makes a server with build over a real SQLite store in a temporary
// directory and serves it; the test's end stops the server, then closes the
// store.
func Start[H Handler](t testing.TB, build func(Env) (H, error)) (*Server, H) {
	t.Helper()
	db, err := sqlite.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() }) // last: cleanups run in the reverse order
	h, err := build(Env{DB: db, TempDir: t.TempDir(), Jobs: Jobs(t, db.Location, "")})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := Serve(t, db, h)
	return s, h
}

// Serve serves h over db until stop is called or the test ends: stop ends
// the long-lived answers, the HTTP server, then h. It leaves db open.
func Serve(t testing.TB, db *store.DB, h Handler) (s *Server, stop func()) {
	s = &Server{Server: httptest.NewServer(h), DB: db}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			h.BeginShutdown()
			s.Close()
			h.Close()
		})
	}
	t.Cleanup(stop)
	return s, stop
}

// Jobs returns a job runner, not started, over the SQLite file at where or
// the PostgreSQL database at a postgres:// URL, as cmd/leakui makes one:
// River's tables beside the store's. id names the replica (default: a random
// name). The server starts and stops it; its backend closes when the test
// ends.
func Jobs(t testing.TB, where, id string) *jobs.Runner {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var b *jobs.Backend
	var err error
	if postgres.IsDSN(where) {
		b, err = jobspostgres.Open(ctx, where)
	} else {
		b, err = jobssqlite.Open(ctx, where)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return jobs.New(b, jobs.Config{ID: id, Queues: map[string]int{background.Queue: 1},
		PollInterval: 50 * time.Millisecond, RescueAfter: 3 * time.Second, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// File is one part of a multipart upload.
type File struct {
	Name string
	Data []byte
}

// Multipart builds an upload request's body and its content type.
func Multipart(t testing.TB, files []File, fields map[string]string) (io.Reader, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	for _, f := range files {
		w, err := mw.CreateFormFile("file", f.Name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(f.Data)
	}
	mw.Close()
	return &buf, mw.FormDataContentType()
}

// Uploaded is the upload API's answer.
type Uploaded struct {
	Artifacts []kind.Artifact `json:"artifacts"`
	ReportID  string          `json:"report_id"`
	// ReportURL is a path on the server (the API answers it absolute).
	ReportURL string `json:"report_url"`
	Verdict   string `json:"verdict,omitempty"`
	Status    string `json:"status,omitempty"`
}

// Upload posts files to /api/artifacts and decodes the answer.
func (s *Server) Upload(t testing.TB, files ...File) (int, Uploaded, string) {
	t.Helper()
	return s.UploadFields(t, nil, files...)
}

// UploadFields posts files with form fields (nil for none) to /api/artifacts
// and decodes the answer.
func (s *Server) UploadFields(t testing.TB, fields map[string]string, files ...File) (int, Uploaded, string) {
	t.Helper()
	body, ct := Multipart(t, files, fields)
	resp, err := http.Post(s.URL+"/api/artifacts", ct, body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out Uploaded
	json.Unmarshal(raw, &out)
	out.ReportURL = strings.TrimPrefix(out.ReportURL, s.URL)
	return resp.StatusCode, out, string(raw)
}

// Get fetches a path on the server (or an absolute URL) with headers given
// as name, value pairs, and returns status, content type and body.
func (s *Server) Get(t testing.TB, path string, header ...string) (int, string, []byte) {
	t.Helper()
	if !strings.HasPrefix(path, "http://") && !strings.HasPrefix(path, "https://") {
		path = s.URL + path
	}
	req, _ := http.NewRequest("GET", path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), b
}

// GetJSON fetches path, which must answer 200, into v.
func (s *Server) GetJSON(t testing.TB, path string, v any) {
	t.Helper()
	code, _, body := s.Get(t, path)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v\n%s", path, err, body)
	}
}

// Page fetches path, which must answer 200 with HTML, and parses it.
func (s *Server) Page(t testing.TB, path string) (*goquery.Document, []byte) {
	t.Helper()
	code, ct, body := s.Get(t, path)
	if code != 200 || !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("GET %s: %d %s\n%s", path, code, ct, body)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return doc, body
}

// WaitAnalysis follows a report's server-sent events until its background
// analysis ends, and returns the last state they gave (the heap dumps'
// JobState as S). The deadline only keeps a broken analysis from hanging the
// test.
func WaitAnalysis[S any](t testing.TB, s *Server, id string) S {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+page.ReportEventsURL(id), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var last S
	sc := bufio.NewScanner(resp.Body)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: ") && event == "progress":
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &last); err != nil {
				t.Fatal(err)
			}
		case strings.HasPrefix(line, "data: ") && event == "end":
			return last
		}
	}
	t.Fatalf("the events ended without an end event (%v); last state %+v", sc.Err(), last)
	return last
}

// Analysis is the part of a report's JSON that tells its background
// analysis's state, with its progress as S (the heap dumps' JobState).
type Analysis[S any] struct {
	Status   string `json:"status"`
	Progress *S     `json:"progress"`
}

// ReportAnalysis reads a report's state from its JSON twin.
func ReportAnalysis[S any](t testing.TB, s *Server, id string) Analysis[S] {
	t.Helper()
	code, _, body := s.Get(t, "/api/reports/"+id)
	if code != http.StatusOK {
		t.Fatalf("report JSON: %d %s", code, body)
	}
	var d Analysis[S]
	if err := json.Unmarshal(body, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// ended is the part of an analysis's state MustUploadHeapDump reads.
type ended struct {
	Status string `json:"status"`
}

// MustUploadHeapDump uploads one heap dump, checks that the answer is 202
// with the report analyzing, and waits for the analysis to succeed.
func (s *Server) MustUploadHeapDump(t testing.TB, f File) Uploaded {
	t.Helper()
	return s.MustUploadHeapDumps(t, f)
}

// MustUploadHeapDumps uploads heap dumps together (a comparison for two or
// more), checks that the answer is 202 with the report analyzing, and waits
// for the analysis to succeed.
func (s *Server) MustUploadHeapDumps(t testing.TB, files ...File) Uploaded {
	t.Helper()
	code, up, raw := s.Upload(t, files...)
	if code != http.StatusAccepted || up.Status != store.ReportAnalyzing || up.ReportID == "" {
		t.Fatalf("heap dump upload: %d %s", code, raw)
	}
	if st := WaitAnalysis[ended](t, s, up.ReportID); st.Status != "done" {
		t.Fatalf("the analysis ended %+v", st)
	}
	return up
}

// Hold takes one of slots (the process's heap dump analysis slots) until
// the test calls release (or ends), so that uploads stay queued.
func Hold(t testing.TB, slots chan struct{}) (release func()) {
	slots <- struct{}{}
	released := false
	release = func() {
		if !released {
			released = true
			<-slots
		}
	}
	t.Cleanup(release)
	return release
}

// LeakShapeDump runs analyze/hprof/testdata/LeakShape.java on the real JDK
// (the SAMZA-2785 shape: n consumers of b bytes held by parked threads) and
// returns its heap dump, LeakShape.hprof (.gz when gz asks it compressed).
func LeakShapeDump(t testing.TB, gz bool, n, b int) File {
	t.Helper()
	jh := leakShape(t, gz, n, b)
	name := "LeakShape.hprof"
	if gz {
		name += ".gz"
	}
	return File{Name: name, Data: readFile(t, jh.Dump)}
}

// LeakShapeRun is LeakShapeDump named after n (LeakShape-n.hprof), with
// jcmd's class histogram of the same heap, parsed and as printed.
func LeakShapeRun(t testing.TB, n, b int) (File, *jvm.Histogram, []byte) {
	t.Helper()
	jh := leakShape(t, false, n, b)
	h, err := jvm.ParseHistogram(bytes.NewReader(jh.Histogram))
	if err != nil {
		t.Fatal(err)
	}
	return File{Name: "LeakShape-" + strconv.Itoa(n) + ".hprof", Data: readFile(t, jh.Dump)}, h, jh.Histogram
}

func leakShape(t testing.TB, gz bool, n, b int) javatest.Heap {
	return javatest.Run(t, filepath.Join(fixtures.Root(t), "analyze", "hprof", "testdata", "LeakShape.java"), gz,
		[]string{"-XX:+UseSerialGC", "-Xmx128m"}, strconv.Itoa(n), strconv.Itoa(b), "100", "10")
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ClientAt is an HTTP client whose connections come from the loopback
// address ip (127.0.0.2, say): another client, as the server tells clients
// apart.
func ClientAt(t testing.TB, ip string) *http.Client {
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	tr := &http.Transport{DialContext: dialer.DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: time.Minute}
}

// UploadFrom uploads files from the loopback address from and returns the
// status and the answer.
func (s *Server) UploadFrom(t testing.TB, from string, files ...File) (int, string) {
	t.Helper()
	body, ct := Multipart(t, files, nil)
	resp, err := ClientAt(t, from).Post(s.URL+"/api/artifacts", ct, body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(raw)
}

// ChainDump is a valid heap dump of one chain of n objects (the hostile
// corpus's ChainDump), chain-n.hprof.
func ChainDump(t testing.TB, n int) File {
	t.Helper()
	var b bytes.Buffer
	if err := hostile.ChainDump(&b, n, false, false); err != nil {
		t.Fatal(err)
	}
	return File{Name: fmt.Sprintf("chain-%d.hprof", n), Data: b.Bytes()}
}
