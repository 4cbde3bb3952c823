package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestRepeatedFormFieldsAreBounded streams 3,900 repeated 64 KB text fields
// (250 MB; joining them used to take 200 s and 2.3 GB): the server answers 413
// within seconds, having held about a megabyte of them, and stores nothing.
func TestRepeatedFormFieldsAreBounded(t *testing.T) {
	ts := newTestServer(t, Config{})
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		value := bytes.Repeat([]byte("x"), 64<<10)
		for range 3900 {
			w, err := mw.CreateFormField("e")
			if err == nil {
				_, err = w.Write(value)
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		w, _ := mw.CreateFormFile("file", "heap.pb.gz")
		w.Write(fixture(t, "pprof", "flameshow-heap.pb.gz").data)
		pw.CloseWithError(mw.Close())
	}()
	defer pr.CloseWithError(io.ErrClosedPipe) // ends the writer if the request ends first
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/api/artifacts", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("after %v: %v", time.Since(start), err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(raw), "form fields") {
		t.Errorf("answer %d %s", resp.StatusCode, raw)
	}
	if took > 5*time.Second {
		t.Errorf("the answer took %v", took)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("the request allocated %d MB", alloc>>20)
	}
	if a, _, _, _ := ts.db.Counts(t.Context()); a != 0 {
		t.Error("the refused upload was stored")
	}
}

// TestFormFieldLimits checks the count limit and that repeated fields within the
// limits are still joined with newlines.
func TestFormFieldLimits(t *testing.T) {
	ts := newTestServer(t, Config{})
	heap := fixture(t, "pprof", "flameshow-heap.pb.gz")
	many := func(n int) (io.Reader, string) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		for i := range n {
			mw.WriteField(fmt.Sprintf("f%d", i%3), "v")
		}
		w, _ := mw.CreateFormFile("file", "heap.pb.gz")
		w.Write(heap.data)
		mw.Close()
		return &buf, mw.FormDataContentType()
	}
	body, ct := many(maxFormFields + 1)
	resp, err := http.Post(ts.URL+"/api/artifacts", ct, body)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(raw), "too many form fields") {
		t.Errorf("%d fields: %d %s", maxFormFields+1, resp.StatusCode, raw)
	}
	body, ct = many(maxFormFields)
	req := httptest.NewRequest("POST", "/api/artifacts", body)
	req.Header.Set("Content-Type", ct)
	form, err := uploads{ts.srv}.receiveUpload(httptest.NewRecorder(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer form.Remove()
	if want := strings.Repeat("v\n", maxFormFields/3+1)[:2*(maxFormFields/3+1)-1]; form.Fields["f0"] != want {
		t.Errorf("f0 = %q, want %q", form.Fields["f0"], want)
	}
}
