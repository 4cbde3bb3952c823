package web

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// rawRequest opens a connection to the test server from the loopback address
// from and writes request on it; the connection closes with the test.
func rawRequest(t *testing.T, ts *testServer, from, request string) net.Conn {
	t.Helper()
	dialer := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 10 * time.Second}
	conn, err := dialer.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	return conn
}

// readAnswer reads the next answer on conn, within the test's liveness bound,
// and its body.
func readAnswer(t *testing.T, conn net.Conn, br *bufio.Reader) (*http.Response, string) {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(body)
}

// closedAfter reports whether the server closes conn once its answers are
// read (EOF within a few seconds, nothing more on it).
func closedAfter(conn net.Conn, br *bufio.Reader) bool {
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := br.ReadByte()
	return errors.Is(err, io.EOF)
}

// TestGETAndHEADAreAnsweredWithoutTheirBody sends GET and HEAD requests that
// declare a body of 1,000 bytes and send one: each is answered at once (the
// time is logged; 10 s is the liveness bound), and its connection closed, so
// the rest of the body is never waited for.
func TestGETAndHEADAreAnsweredWithoutTheirBody(t *testing.T) {
	ts := newTestServer(t, Config{})
	host := ts.Listener.Addr().String()
	for _, method := range []string{"GET", "HEAD"} {
		start := time.Now()
		conn := rawRequest(t, ts, "127.0.0.1", fmt.Sprintf("%s / HTTP/1.1\r\nHost: %s\r\nContent-Length: 1000\r\n\r\nx", method, host))
		br := bufio.NewReader(conn)
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(br, &http.Request{Method: method})
		if err != nil {
			t.Fatalf("%s with a trickled body: no answer after %v: %v", method, time.Since(start), err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		t.Logf("%s / with 1 of 1,000 bytes of body sent: %d after %v", method, resp.StatusCode, time.Since(start))
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s with a trickled body: %d", method, resp.StatusCode)
		}
		if !closedAfter(conn, br) {
			t.Errorf("%s with a trickled body: the connection stays open", method)
		}
	}
}

// TestSlowBodyIsCutBelowTheMinimumRate trickles an upload at 400 bytes a
// second, 100 bytes every 250 ms: never silent for the 1 s idle timeout, but
// below the minimum rate of 1 KiB a second over it, so it is cut with 408
// naming -min-body-rate, its connection closed and nothing kept.
func TestSlowBodyIsCutBelowTheMinimumRate(t *testing.T) {
	ts := newTestServer(t, Config{IdleBodyTimeout: time.Second, MinBodyRate: 1024, UploadsPerMinute: -1})
	conn := rawRequest(t, ts, "127.0.0.1", fmt.Sprintf("POST /api/artifacts HTTP/1.1\r\nHost: %s\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 100000\r\n\r\n",
		ts.Listener.Addr()))
	start := time.Now()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		piece := "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"slow.txt\"\r\n\r\n" + strings.Repeat("x", 100)
		for {
			if _, err := io.WriteString(conn, piece[:100]); err != nil {
				return
			}
			piece = piece[100:] + strings.Repeat("x", 100)
			select {
			case <-stop:
				return
			case <-time.After(250 * time.Millisecond):
			}
		}
	}()
	br := bufio.NewReader(conn)
	resp, body := readAnswer(t, conn, br)
	t.Logf("an upload at 400 B/s: %d after %v: %s", resp.StatusCode, time.Since(start), body)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(body, "-min-body-rate") {
		t.Errorf("an upload at 400 B/s: %d %s, want 408 naming -min-body-rate", resp.StatusCode, body)
	}
	if !closedAfter(conn, br) {
		t.Error("the connection of the cut upload stays open")
	}
	if a, _, _, _ := ts.db.Counts(t.Context()); a != 0 {
		t.Error("the cut upload was stored")
	}
	if left, _ := os.ReadDir(ts.srv.cfg.TempDir); len(left) != 0 {
		t.Errorf("spooled files left behind: %v", left)
	}
}

// TestUnreadBodyNeverHoldsTheAnswer posts to /logout, whose handler reads no
// body, declaring 1,000 bytes of body and sending one: the answer comes at
// once, and the connection closes after it.
func TestUnreadBodyNeverHoldsTheAnswer(t *testing.T) {
	ts := newTestServer(t, Config{})
	start := time.Now()
	conn := rawRequest(t, ts, "127.0.0.1", fmt.Sprintf("POST /logout HTTP/1.1\r\nHost: %s\r\nContent-Length: 1000\r\n\r\nx", ts.Listener.Addr()))
	br := bufio.NewReader(conn)
	resp, _ := readAnswer(t, conn, br)
	t.Logf("POST /logout with 1 of 1,000 bytes of body sent: %d after %v", resp.StatusCode, time.Since(start))
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("POST /logout: %d, want 303", resp.StatusCode)
	}
	if !closedAfter(conn, br) {
		t.Error("the connection stays open with the body unread")
	}
}

// TestChunkedRequestClosesItsConnection signs in with a request that has both
// Content-Length and Transfer-Encoding: chunked, whose chunked body (read to
// its end by the handler) ends early and is followed by a second request
// inside the declared length, as a proxy that went by Content-Length would
// forward it: the first is answered, and the connection closes without
// answering the smuggled second.
func TestChunkedRequestClosesItsConnection(t *testing.T) {
	ts := newTestServer(t, Config{})
	host := ts.Listener.Addr().String()
	smuggled := fmt.Sprintf("GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", host)
	body := "0\r\n\r\n" + smuggled
	conn := rawRequest(t, ts, "127.0.0.1", fmt.Sprintf("POST /login HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\n"+
		"Content-Length: %d\r\nTransfer-Encoding: chunked\r\n\r\n%s", host, len(body), body))
	br := bufio.NewReader(conn)
	resp, _ := readAnswer(t, conn, br)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the sign-in with both lengths (its form read to the end, empty): %d, want 401", resp.StatusCode)
	}
	if !closedAfter(conn, br) {
		t.Error("the connection stays open after a request with both Content-Length and Transfer-Encoding: the smuggled request is answered")
	}
}

// stalledUploadFrom starts an upload from the loopback address from whose
// body stops after its first part's header, so it holds (or waits for) an
// upload slot until the returned function ends it.
func stalledUploadFrom(t *testing.T, ts *testServer, from string) (end func()) {
	t.Helper()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	req, _ := http.NewRequest("POST", ts.URL+"/api/artifacts", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	client := clientAt(t, from)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	go func() {
		w, _ := mw.CreateFormFile("file", "slow.txt")
		w.Write([]byte("goroutine 1 [running]:\n"))
	}()
	return func() { pw.CloseWithError(io.ErrUnexpectedEOF); <-done }
}

// TestAnAddressNeverHoldsAllOfAClass holds 8 stalled uploads, 4 from
// 127.0.0.2 and 4 from 127.0.0.3, against 8 upload slots with the default
// share per address (a quarter of the slots): each address holds 2 and waits
// with 2, a fifth from one address is refused with 429 naming
// -max-per-client, /readyz stays ready, and a third address's upload is
// stored at once (its time logged; 10 s is the liveness bound).
func TestAnAddressNeverHoldsAllOfAClass(t *testing.T) {
	ts := newTestServer(t, Config{MaxUploads: 8, IdleBodyTimeout: -1, UploadsPerMinute: -1})
	for _, from := range []string{"127.0.0.2", "127.0.0.3"} {
		for range 4 {
			end := stalledUploadFrom(t, ts, from)
			defer end()
		}
	}
	h := waitHealth(t, ts, func(h health) bool { return h.Throttles["uploads"].Busy == 4 && h.Throttles["uploads"].Waiting == 4 })
	if st := h.Throttles["uploads"]; st.PerClient != 2 || st.PerClientQueued != 10 {
		t.Errorf("the uploads' share per address: %+v, want 2 slots and 10 going or waiting", st)
	}
	if code, _, body := ts.get(t, "/readyz"); code != http.StatusOK {
		t.Errorf("readyz with only addresses at their share waiting: %d %s", code, body)
	}
	start := time.Now()
	body, ct := multipartBody(t, []file{{"third.txt", []byte("goroutine 1 [running]:\nmain.main()\n")}}, nil)
	resp, err := clientAt(t, "127.0.0.4").Post(ts.URL+"/api/artifacts", ct, body)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	t.Logf("an upload from a third address while two hold their shares: %d in %v", resp.StatusCode, took)
	if resp.StatusCode != http.StatusCreated || took > 10*time.Second {
		t.Errorf("an upload from a third address: %d after %v %s, want 201 at once", resp.StatusCode, took, raw)
	}
	var extra [10]func()
	for i := range extra {
		extra[i] = stalledUploadFrom(t, ts, "127.0.0.2")
		defer extra[i]()
	}
	// The share of 10 going or waiting: 6 more wait, the others are refused.
	waitHealth(t, ts, func(h health) bool { return h.Throttles["uploads"].Waiting == 10 })
	body, ct = multipartBody(t, []file{{"more.txt", []byte("goroutine 1 [running]:\nmain.main()\n")}}, nil)
	resp, err = clientAt(t, "127.0.0.2").Post(ts.URL+"/api/artifacts", ct, body)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(raw), "-max-per-client") {
		t.Errorf("an upload from an address past its share: %d, Retry-After %q, %s; want 429 naming -max-per-client", resp.StatusCode, resp.Header.Get("Retry-After"), raw)
	}
}

// TestGETHandlersReadNoBody serves, through progressDeadlines, a handler that
// tries to read its request's body: on a GET with a body it reads nothing,
// and on a POST it reads the body.
func TestGETHandlersReadNoBody(t *testing.T) {
	s := &Server{cfg: Config{IdleBodyTimeout: time.Second, MinBodyRate: 1024}}
	ts := httptest.NewServer(s.progressDeadlines(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%d %v", len(b), err)
	})))
	defer ts.Close()
	for _, c := range []struct{ method, want string }{{"GET", "0 <nil>"}, {"POST", "5 <nil>"}} {
		req, _ := http.NewRequest(c.method, ts.URL, strings.NewReader("hello"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(got) != c.want {
			t.Errorf("%s with a body of 5 bytes: the handler read %q, want %q", c.method, got, c.want)
		}
	}
}

// TestCutFormIsA408 signs in with a form body that stops after one byte: the
// sign-in handler sees a failed read, and the answer is still 408 naming
// -idle-body-timeout, not the 400 of a bad form.
func TestCutFormIsA408(t *testing.T) {
	ts := newTestServer(t, Config{IdleBodyTimeout: time.Second})
	conn := rawRequest(t, ts, "127.0.0.1", fmt.Sprintf("POST /login HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nt",
		ts.Listener.Addr()))
	br := bufio.NewReader(conn)
	resp, body := readAnswer(t, conn, br)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(body, "-idle-body-timeout") {
		t.Errorf("a sign-in whose form stops: %d %s, want 408 naming -idle-body-timeout", resp.StatusCode, body)
	}
	if !closedAfter(conn, br) {
		t.Error("the connection stays open")
	}
}

// TestReadBodyKeepsItsConnection posts a JSON run twice over one keep-alive
// connection to a server without the lab: the handler decodes the body to
// its declared length (no read has returned its end yet) and answers 403,
// and the connection stays open for the second.
func TestReadBodyKeepsItsConnection(t *testing.T) {
	ts := newTestServer(t, Config{})
	const body = `{"workload":"checkpoint","variant":"leaky","cycles":3}`
	request := fmt.Sprintf("POST /api/runs HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		ts.Listener.Addr(), len(body), body)
	conn := rawRequest(t, ts, "127.0.0.1", request)
	br := bufio.NewReader(conn)
	for i := range 2 {
		resp, answer := readAnswer(t, conn, br)
		if resp.StatusCode != http.StatusForbidden || resp.Close {
			t.Fatalf("run %d on one connection: %d, Connection: close %v: %s", i+1, resp.StatusCode, resp.Close, answer)
		}
		if i == 0 {
			if _, err := io.WriteString(conn, request); err != nil {
				t.Fatalf("the connection closed after the first run: %v", err)
			}
		}
	}
}
