package web

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestDNSRebindingIsRefused sends what a page on evil.example sends once its
// name points at the server (Host: evil.example, with a matching Origin and
// Sec-Fetch-Site: same-origin): the upload and the dashboard answer 421 and
// nothing is stored, while the server's own address works.
func TestDNSRebindingIsRefused(t *testing.T) {
	ts := newTestServer(t, Config{})
	heap := fixture(t, "pprof", "flameshow-heap.pb.gz")
	send := func(method, path, host string, body io.Reader, ct string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, ts.URL+path, body)
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		if host != "" {
			req.Host = host
			req.Header.Set("Origin", "http://"+host)
			req.Header.Set("Sec-Fetch-Site", "same-origin")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, host := range []string{"evil.example", "evil.example:" + ts.URL[strings.LastIndex(ts.URL, ":")+1:]} {
		body, ct := multipartBody(t, []file{heap}, nil)
		if code, raw := send("POST", "/api/artifacts", host, body, ct); code != http.StatusMisdirectedRequest || !strings.Contains(raw, "allowed-hosts") {
			t.Errorf("upload with Host %s: %d %s", host, code, raw)
		}
		if code, raw := send("GET", "/", host, nil, ""); code != http.StatusMisdirectedRequest || !strings.Contains(raw, "evil.example") {
			t.Errorf("dashboard with Host %s: %d %s", host, code, raw)
		}
	}
	if a, _, _, _ := ts.db.Counts(t.Context()); a != 0 {
		t.Fatal("the rebound upload was stored")
	}
	// The real host, and the loopback names on any port, work.
	port := ts.URL[strings.LastIndex(ts.URL, ":")+1:]
	for _, host := range []string{"", "localhost:" + port, "[::1]:" + port, "LOCALHOST:" + port} {
		body, ct := multipartBody(t, []file{heap}, nil)
		if code, raw := send("POST", "/api/artifacts", host, body, ct); code != http.StatusCreated {
			t.Errorf("upload with Host %q: %d %s", host, code, raw)
		}
		if code, raw := send("GET", "/", host, nil, ""); code != http.StatusOK {
			t.Errorf("dashboard with Host %q: %d %s", host, code, raw)
		}
	}
}

// TestAllowedHosts checks a configured list: exact host:port entries, names on
// any port, and "*".
func TestAllowedHosts(t *testing.T) {
	l := newHostAllowList([]string{"leakui.internal:8080", "Dash.Example.", "[::1]:8080"})
	for host, want := range map[string]bool{
		"leakui.internal:8080": true, "LEAKUI.internal:8080": true, "leakui.internal:8081": false, "leakui.internal": false,
		"dash.example": true, "dash.example:443": true, "dash.example.:1": true, "[::1]:8080": true, "[::1]:9": false,
		"127.0.0.1:8080": false, "localhost:8080": false, "evil.example": false, "": false,
	} {
		if got := l.allows(host); got != want {
			t.Errorf("allows(%q) = %v, want %v", host, got, want)
		}
	}
	if !newHostAllowList([]string{"*"}).allows("anything.example") {
		t.Error("* did not allow every host")
	}
	def := newHostAllowList(nil)
	for host, want := range map[string]bool{"127.0.0.1:1": true, "localhost": true, "[::1]:5": true, "127.0.0.2:1": false, "evil.example:80": false} {
		if got := def.allows(host); got != want {
			t.Errorf("default allows(%q) = %v, want %v", host, got, want)
		}
	}
	ts := newTestServer(t, Config{AllowedHosts: []string{"leakui.internal"}})
	if code, _, body := ts.get(t, "/healthz"); code != http.StatusMisdirectedRequest {
		t.Errorf("a server for leakui.internal answered 127.0.0.1: %d %s", code, body)
	}
}
