package web

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leakui/leakui/web/internal/webtest"
)

// clientAt is an HTTP client whose connections come from the loopback address
// ip (127.0.0.2, say): another client, as the server tells clients apart.
func clientAt(t *testing.T, ip string) *http.Client { return webtest.ClientAt(t, ip) }

// pageWhileStalled asks for the dashboard from another client while a class
// is held, and fails unless it answers 200 within 10 s (the far bound; the
// time is logged).
func pageWhileStalled(t *testing.T, ts *testServer, held string) {
	t.Helper()
	start := time.Now()
	resp, err := clientAt(t, "127.0.0.2").Get(ts.URL + "/")
	took := time.Since(start)
	if err != nil {
		t.Fatalf("the dashboard while %s stall: %v", held, err)
	}
	resp.Body.Close()
	t.Logf("the dashboard from 127.0.0.2 while %s stall: %d in %v", held, resp.StatusCode, took)
	if resp.StatusCode != http.StatusOK || took > 10*time.Second {
		t.Errorf("the dashboard while %s stall: %d after %v, want 200 at once", held, resp.StatusCode, took)
	}
}

// TestStalledUploadsLeavePagesAlone holds 8 uploads from one client that
// stop sending: they fill the uploads' throttle, /healthz names it, a ninth
// upload from the same client gets 429 with Retry-After, and the dashboard
// still answers another client while they stall.
func TestStalledUploadsLeavePagesAlone(t *testing.T) {
	ts := newTestServer(t, Config{MaxUploads: 8, MaxPerClient: 8, MaxAnalyses: 1, IdleBodyTimeout: -1, UploadsPerMinute: -1})
	var ends []func()
	for range 8 {
		ends = append(ends, stalledUpload(t, ts))
	}
	defer func() {
		for _, end := range ends {
			end()
		}
	}()
	h := waitHealth(t, ts, func(h health) bool { return h.Throttles["uploads"].Busy == 8 })
	if h.Status != "degraded" || len(h.Reasons) != 1 || !strings.HasPrefix(h.Reasons[0], "the uploads throttle is saturated: 8 of 8 busy") {
		t.Errorf("healthz with 8 stalled uploads: %+v", h)
	}
	if st := h.Throttles["pages"]; st.Busy != 0 || st.Limit != 1 {
		t.Errorf("the page views' throttle with 8 stalled uploads: %+v", st)
	}
	pageWhileStalled(t, ts, "8 uploads")

	body, ct := multipartBody(t, []file{{"ninth.txt", []byte("goroutine 1 [running]:\nmain.main()\n")}}, nil)
	resp, err := http.Post(ts.URL+"/api/artifacts", ct, body)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(raw), "-max-per-client") {
		t.Errorf("a ninth upload from the same client: %d, Retry-After %q, %s; want 429 with Retry-After naming -max-per-client",
			resp.StatusCode, resp.Header.Get("Retry-After"), raw)
	}
}

// TestStalledDownloadsLeavePagesAlone holds 8 downloads of a 12 MB artifact
// from one client that read nothing: they fill the downloads' throttle,
// /healthz names it, a ninth from the same client gets 429, and the dashboard
// and an API read answer another client while they stall.
func TestStalledDownloadsLeavePagesAlone(t *testing.T) {
	ts := newTestServer(t, Config{MaxDownloads: 8, MaxPerClient: 8, MaxAnalyses: 1, MaxAPIReads: 1, IdleWriteTimeout: -1, UploadsPerMinute: -1})
	raw := make([]byte, 9<<20)
	rand.Read(raw)
	enc := base64.StdEncoding.EncodeToString(raw)
	var b strings.Builder
	for ; len(enc) > 76; enc = enc[76:] {
		b.WriteString("2024-01-01 00:00:00,000 INFO " + enc[:76] + "\n")
	}
	up := ts.mustUpload(t, nil, file{"big.log", []byte(b.String())})
	path := "/a/" + up.Artifacts[0].SHA256

	// Connections that take 4 KiB and then read nothing, as a stalled
	// client's would.
	dialer := net.Dialer{Timeout: 10 * time.Second, Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		return serr
	}}
	host := strings.TrimPrefix(ts.URL, "http://")
	for range 8 {
		conn, err := dialer.DialContext(context.Background(), "tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, host)
	}
	h := waitHealth(t, ts, func(h health) bool { return h.Throttles["downloads"].Busy == 8 })
	if h.Status != "degraded" || len(h.Reasons) != 1 || !strings.HasPrefix(h.Reasons[0], "the downloads throttle is saturated: 8 of 8 busy") {
		t.Errorf("healthz with 8 stalled downloads: %+v", h)
	}
	pageWhileStalled(t, ts, "8 downloads")
	if code, _, body := ts.get(t, up.ReportURL+".md"); code != http.StatusOK {
		t.Errorf("the report's Markdown summary while 8 downloads stall: %d %.200s", code, body)
	}
	if code, _, body := ts.get(t, path); code != http.StatusTooManyRequests {
		t.Errorf("a ninth download from the same client: %d %.200s, want 429", code, body)
	}
	if h := waitHealth(t, ts, func(health) bool { return true }); h.Throttles["downloads"].Busy != 8 {
		t.Errorf("the stalled downloads ended before the test did: %+v", h.Throttles["downloads"])
	}
}
