package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
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
	return resp.StatusCode, out.ReportURL
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
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	result := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("POST", "http://"+m.Addr+"/api/artifacts", pr)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			result <- -1
			return
		}
		resp.Body.Close()
		result <- resp.StatusCode
	}()
	w, _ := mw.CreateFormFile("file", "heap.pb.gz")
	w.Write(data[:len(data)/2])
	time.Sleep(100 * time.Millisecond) // the request is now in flight
	closed := make(chan error, 1)
	go func() { closed <- m.Close() }()
	time.Sleep(100 * time.Millisecond)
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
