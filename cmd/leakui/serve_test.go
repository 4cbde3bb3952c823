package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/fixtures"
)

// openMain starts the serve command on a free port with the given data directory.
func openMain(t *testing.T, dir string) *Main {
	t.Helper()
	var out, errb bytes.Buffer
	m := NewMain(stdio{strings.NewReader(""), &out, &errb})
	if err := m.ParseFlags([]string{"-addr", "127.0.0.1:0", "-data", dir}); err != nil {
		t.Fatal(err)
	}
	if err := m.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	// A test that stops early still closes the server and its store, so the next
	// test's goleak check does not see this one's goroutines (Close is idempotent).
	t.Cleanup(func() { m.Close() })
	if !strings.Contains(out.String(), "leakui listening on http://"+m.Addr) {
		t.Errorf("stdout = %q", out.String())
	}
	return m
}

func uploadFile(t testing.TB, base, path string) (int, string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	w, _ := mw.CreateFormFile("file", "heap.pb.gz")
	w.Write(data)
	mw.Close()
	resp, err := http.Post(base+"/api/artifacts", mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		ReportURL string `json:"report_url"`
	}
	json.NewDecoder(resp.Body).Decode(&out)
	// report_url is absolute, on the server asked; the callers want its path.
	if resp.StatusCode == http.StatusCreated && !strings.HasPrefix(out.ReportURL, base+"/r/") {
		t.Errorf("report_url %q does not start with %s/r/", out.ReportURL, base)
	}
	return resp.StatusCode, strings.TrimPrefix(out.ReportURL, base)
}

// TestServeLinksSurviveRestart uploads, stops the server, starts a new one on the
// same data directory and opens the same link.
func TestServeLinksSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	m := openMain(t, dir)
	status, link := uploadFile(t, "http://"+m.Addr, fixtures.Path(t, "pprof", "flameshow-heap.pb.gz"))
	if status != 201 || link == "" {
		t.Fatalf("upload: %d %q", status, link)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m2 := openMain(t, dir)
	defer m2.Close()
	resp, err := http.Get("http://" + m2.Addr + link)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(page, []byte("heap.pb.gz")) {
		t.Errorf("after a restart %s answers %d", link, resp.StatusCode)
	}
}

// TestServeGracefulShutdown starts an upload, asks the server to stop while the
// body is still arriving, and checks the upload still completes.
func TestServeGracefulShutdown(t *testing.T) {
	m := openMain(t, t.TempDir())
	data, err := os.ReadFile(fixtures.Path(t, "pprof", "flameshow-heap.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	// The client asks for "100 Continue" and sends no body before it: the
	// server answers 100 only once the upload handler reads the body, so the
	// trace's Got100Continue means the request is in the handler, in flight.
	reading := make(chan struct{})
	var once sync.Once
	trace := &httptrace.ClientTrace{Got100Continue: func() { once.Do(func() { close(reading) }) }}
	tr := &http.Transport{ExpectContinueTimeout: time.Minute}
	defer tr.CloseIdleConnections()
	// The server runs the hooks registered on shutdown once it has closed its
	// listener: then Close has begun.
	shuttingDown := make(chan struct{})
	m.server.RegisterOnShutdown(func() { close(shuttingDown) })

	pr, pw := io.Pipe()
	// A test that fails early ends the body, so the handler and Close finish.
	defer pw.CloseWithError(errors.New("the test ended"))
	mw := multipart.NewWriter(pw)
	result := make(chan int, 1)
	go func() {
		req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), "POST", "http://"+m.Addr+"/api/artifacts", pr)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("Expect", "100-continue")
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			pr.CloseWithError(err) // the writes below fail instead of blocking
			result <- -1
			return
		}
		resp.Body.Close()
		result <- resp.StatusCode
	}()
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	select {
	case <-reading:
	case code := <-result:
		t.Fatalf("the upload ended with %d before its body was sent", code)
	case <-timeout.C:
		t.Fatal("the server never started to read the upload's body")
	}
	w, _ := mw.CreateFormFile("file", "heap.pb.gz")
	if _, err := w.Write(data[:len(data)/2]); err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() { closed <- m.Close() }()
	select {
	case <-shuttingDown:
	case err := <-closed:
		t.Fatalf("Close returned (%v) before the upload finished", err)
	case <-timeout.C:
		t.Fatal("Close never began to shut the server down")
	}
	if conn, err := net.Dial("tcp", m.Addr); err == nil {
		conn.Close()
		t.Error("the server still accepts connections while it shuts down")
	}
	w.Write(data[len(data)/2:])
	mw.Close()
	pw.Close()
	if code := <-result; code != 201 {
		t.Errorf("the in-flight upload got %d, want 201", code)
	}
	if err := <-closed; err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := http.Get("http://" + m.Addr + "/healthz"); err == nil {
		t.Error("the server still answers after Close")
	}
}

func TestServeFlags(t *testing.T) {
	var errb bytes.Buffer
	m := NewMain(stdio{strings.NewReader(""), &errb, &errb})
	if err := m.ParseFlags([]string{"-retain", "30d", "-token", "t", "-private", "-lab=false", "-max-runs", "3",
		"-target", "api=http://10.0.0.5:6060", "-target", "db=http://10.0.0.6:6060/"}); err != nil {
		t.Fatal(err)
	}
	if time.Duration(m.Retain) != 30*24*time.Hour || m.Token != "t" || !m.Private || m.Lab || m.MaxRuns != 3 ||
		m.Targets["api"] != "http://10.0.0.5:6060" || m.Targets["db"] != "http://10.0.0.6:6060" {
		t.Errorf("flags: %+v", m)
	}
	m = NewMain(stdio{strings.NewReader(""), &errb, &errb})
	if err := m.ParseFlags([]string{"-private"}); err == nil {
		t.Error("-private without a token was accepted")
	}
	t.Setenv("LEAKUI_TOKEN", "from-env")
	m = NewMain(stdio{strings.NewReader(""), &errb, &errb})
	if err := m.ParseFlags(nil); err != nil || m.Token != "from-env" {
		t.Errorf("LEAKUI_TOKEN: %q %v", m.Token, err)
	}
	if err := NewMain(stdio{strings.NewReader(""), &errb, &errb}).ParseFlags([]string{"-target", "api=file:///etc/passwd"}); err == nil {
		t.Error("a file URL target was accepted")
	}
	if err := m.Retain.Set("soon"); err == nil {
		t.Error("-retain soon was accepted")
	}
}

// TestServeAllowedHosts checks that the served binary's default answers to its
// own address and refuses a rebound name, and that -allowed-hosts replaces the
// default.
func TestServeAllowedHosts(t *testing.T) {
	m := openMain(t, t.TempDir())
	_, port, _ := net.SplitHostPort(m.Addr)
	get := func(host string) int {
		t.Helper()
		req, _ := http.NewRequest("GET", "http://"+m.Addr+"/", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for host, want := range map[string]int{m.Addr: 200, "localhost:" + port: 200, "evil.example:" + port: 421, "evil.example": 421, "localhost:1": 421} {
		if got := get(host); got != want {
			t.Errorf("Host %s: %d, want %d", host, got, want)
		}
	}
	var errb bytes.Buffer
	m2 := NewMain(stdio{strings.NewReader(""), &errb, &errb})
	if err := m2.ParseFlags([]string{"-allowed-hosts", " leakui.internal:8080, dash.example ,"}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(m2.AllowedHosts, "|") != "leakui.internal:8080|dash.example" {
		t.Errorf("-allowed-hosts: %q", m2.AllowedHosts)
	}
	all := strings.Join(defaultAllowedHosts("0.0.0.0:8080"), " ")
	if !strings.Contains(all, "127.0.0.1:8080") || !strings.Contains(all, "localhost:8080") || strings.Contains(all, "0.0.0.0") {
		t.Errorf("defaults on 0.0.0.0: %s", all)
	}
}
