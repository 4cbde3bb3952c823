package web

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// TestTrickledUploadIsCut starts an upload, sends one byte of its body and goes
// silent: with a 1 s idle-body timeout the server answers 408 and closes the
// connection within a few seconds, and stores and keeps nothing. The
// idle-write timeout is set too, as serve sets both: the 408 is written after
// it has passed since the request began.
func TestTrickledUploadIsCut(t *testing.T) {
	ts := newTestServer(t, Config{IdleBodyTimeout: time.Second, IdleWriteTimeout: time.Second})
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	fmt.Fprintf(conn, "POST /api/artifacts HTTP/1.1\r\nHost: %s\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 100000\r\n\r\n-",
		ts.Listener.Addr())
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer after %v: %v", time.Since(start), err)
	}
	body, _ := io.ReadAll(resp.Body) // ends when the server closes the connection
	resp.Body.Close()
	took := time.Since(start)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(body), "idle-body-timeout") {
		t.Errorf("answer %d %s", resp.StatusCode, body)
	}
	if took < time.Second || took > 5*time.Second {
		t.Errorf("cut after %v, want about 1 s", took)
	}
	if _, err := conn.Read(make([]byte, 1)); err == nil {
		t.Error("the connection is still open")
	}
	if a, _, _, _ := ts.db.Counts(t.Context()); a != 0 {
		t.Error("the cut upload was stored")
	}
	if left, _ := os.ReadDir(ts.srv.cfg.TempDir); len(left) != 0 {
		t.Errorf("spooled files left behind: %v", left)
	}
}

// TestSlowMovingUploadSucceeds sends an upload in small pieces 300 ms apart,
// longer in all than the 1 s idle-body timeout: it keeps moving, so it is
// stored, and its 201 arrives though the request took longer than the 1 s
// idle-write timeout.
func TestSlowMovingUploadSucceeds(t *testing.T) {
	ts := newTestServer(t, Config{IdleBodyTimeout: time.Second, IdleWriteTimeout: time.Second})
	body, ct := multipartBody(t, []file{fixture(t, "pprof", "flameshow-heap.pb.gz")}, nil)
	raw, _ := io.ReadAll(body)
	pr, pw := io.Pipe()
	go func() {
		const pieces = 12
		step := len(raw)/pieces + 1
		for i := 0; i < len(raw); i += step {
			if _, err := pw.Write(raw[i:min(i+step, len(raw))]); err != nil {
				return
			}
			time.Sleep(300 * time.Millisecond)
		}
		pw.Close()
	}()
	start := time.Now()
	resp, err := http.Post(ts.URL+"/api/artifacts", ct, pr)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("slow upload: %d %s", resp.StatusCode, out)
	}
	if took := time.Since(start); took < 2*time.Second {
		t.Errorf("the upload took only %v; the test means it to outlast the timeout", took)
	}
}

// TestStalledDownloadIsCut downloads an artifact far larger than the socket
// buffers and reads none of it: with a 1 s idle-write timeout the server gives
// up and closes the connection, so the client gets less than the whole file.
func TestStalledDownloadIsCut(t *testing.T) {
	ts := newTestServer(t, Config{IdleWriteTimeout: time.Second})
	var log bytes.Buffer
	for i := 0; log.Len() < 48<<20; i++ {
		fmt.Fprintf(&log, "2026-01-01T00:00:00Z INFO request %d served from a stalled download test\n", i)
	}
	// The file goes in through the handler in process: the test is about the
	// download, and a 48 MB log's analysis under -race on a loaded machine must not
	// race the 1 s write timeout of the upload's own connection.
	rec := postFiles(t, ts.srv, nil, file{"big.log", log.Bytes()})
	var up uploadResponse
	if rec.Code != http.StatusCreated || json.Unmarshal(rec.Body.Bytes(), &up) != nil || len(up.Artifacts) == 0 {
		t.Fatalf("upload: %d %s", rec.Code, rec.Body)
	}
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /a/%s HTTP/1.1\r\nHost: %s\r\n\r\n", up.Artifacts[0].SHA256, ts.Listener.Addr())
	time.Sleep(4 * time.Second) // read nothing; the server's deadline passes
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, err := io.Copy(io.Discard, conn)
	if err != nil {
		t.Fatalf("after %d bytes: %v (the server kept the connection open)", n, err)
	}
	if n >= int64(log.Len()) {
		t.Errorf("the whole %d bytes arrived; the stalled download was not cut", n)
	}
}
