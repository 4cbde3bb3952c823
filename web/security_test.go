package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestSecurityHeaders(t *testing.T) {
	ts := newTestServer(t, Config{})
	_, up, _ := ts.upload(t, fixture(t, "pprof", "flameshow-heap.pb.gz"))
	for _, path := range []string{"/", up.ReportURL, "/api/reports/" + up.ReportID, "/a/" + up.Artifacts[0].SHA256, "/nowhere"} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		h := resp.Header
		csp := h.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") ||
			!strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s: CSP %q", path, csp)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("%s: nosniff %q, referrer %q", path, h.Get("X-Content-Type-Options"), h.Get("Referrer-Policy"))
		}
	}
	resp, _ := http.Get(ts.URL + "/a/" + up.Artifacts[0].SHA256)
	resp.Body.Close()
	if resp.Header.Get("Content-Type") != "application/octet-stream" || !strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment;") {
		t.Errorf("download headers %v", resp.Header)
	}
}

func TestCrossSiteRequestsAreRefused(t *testing.T) {
	ts := newTestServer(t, Config{})
	body, ct := multipartBody(t, []file{fixture(t, "pprof", "flameshow-heap.pb.gz")}, nil)
	req, _ := http.NewRequest("POST", ts.URL+"/api/artifacts", body)
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Header.Set("Origin", "https://evil.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a cross-site upload got %d", resp.StatusCode)
	}
	if a, _, _, _ := ts.db.Counts(t.Context()); a != 0 {
		t.Error("the refused upload was stored")
	}
	// The same from the page itself passes.
	body, ct = multipartBody(t, []file{fixture(t, "pprof", "flameshow-heap.pb.gz")}, nil)
	req, _ = http.NewRequest("POST", ts.URL+"/api/artifacts", body)
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Errorf("a same-origin upload got %d", resp.StatusCode)
	}
}

func TestTokenGuardsWritesAndPrivateGuardsReads(t *testing.T) {
	const token = "s3cret-token-for-tests"
	ts := newTestServer(t, Config{Token: token})
	heap := fixture(t, "pprof", "flameshow-heap.pb.gz")
	if status, _, raw := ts.upload(t, heap); status != http.StatusUnauthorized || !strings.Contains(raw, "Bearer") {
		t.Errorf("upload without the token: %d %s", status, raw)
	}
	body, ct := multipartBody(t, []file{heap}, nil)
	req, _ := http.NewRequest("POST", ts.URL+"/api/artifacts", body)
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var up uploadResponse
	json.NewDecoder(resp.Body).Decode(&up)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("upload with the token: %d", resp.StatusCode)
	}
	// Reads by id stay open; the dashboard does not list reports to strangers.
	if code, _, _ := ts.get(t, up.ReportURL); code != 200 {
		t.Errorf("reading a report by id: %d", code)
	}
	_, _, home := ts.get(t, "/")
	if bytes.Contains(home, []byte(up.ReportID)) || !bytes.Contains(home, []byte(`data-testid="sign-in"`)) {
		t.Error("the dashboard lists report ids to a visitor without the token")
	}
	// Wrong tokens and deletes.
	req, _ = http.NewRequest("DELETE", ts.URL+"/api/artifacts/"+up.Artifacts[0].SHA256, nil)
	req.Header.Set("Authorization", "Bearer wrong")
	resp, _ = http.DefaultClient.Do(req)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("delete with a wrong token: %d", resp.StatusCode)
	}
	// Signing in through the form sets an HttpOnly, SameSite cookie that works.
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	resp, err = client.PostForm(ts.URL+"/login", url.Values{"token": {token}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	u, _ := url.Parse(ts.URL)
	cookies := jar.Cookies(u)
	if len(cookies) != 1 || strings.Contains(cookies[0].Value, token) {
		t.Fatalf("session cookies %v", cookies)
	}
	resp, err = client.Get(ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	pg := new(bytes.Buffer)
	pg.ReadFrom(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(pg.Bytes(), []byte(up.ReportID)) {
		t.Error("signed in, the dashboard does not list the report")
	}
	raw := loginCookieHeader(t, ts.URL, token)
	if !strings.Contains(raw, "HttpOnly") || !strings.Contains(raw, "SameSite=Strict") {
		t.Errorf("cookie %q", raw)
	}

	private := newTestServer(t, Config{Token: token, Private: true})
	for _, path := range []string{"/", "/r/" + up.ReportID, "/api/reports/" + up.ReportID} {
		if code, _, _ := private.get(t, path); code != http.StatusUnauthorized {
			t.Errorf("private %s without the token: %d", path, code)
		}
	}
	if code, _, _ := private.get(t, "/healthz"); code != 200 {
		t.Error("healthz needs no token")
	}
	if code, _, _ := private.get(t, "/r/"+up.ReportID, "Authorization", "Bearer "+token); code != http.StatusNotFound {
		t.Errorf("private read with the token reaches the store (404 there): %d", code)
	}
}

func loginCookieHeader(t *testing.T, base, token string) string {
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.PostForm(base+"/login", url.Values{"token": {token}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.Header.Get("Set-Cookie")
}

func TestUploadRateLimit(t *testing.T) {
	ts := newTestServer(t, Config{UploadsPerMinute: 1, UploadBurst: 2})
	heap := fixture(t, "pprof", "flameshow-heap.pb.gz")
	for i := range 2 {
		if status, _, raw := ts.upload(t, heap); status != 201 {
			t.Fatalf("upload %d: %d %s", i, status, raw)
		}
	}
	body, ct := multipartBody(t, []file{heap}, nil)
	resp, err := http.Post(ts.URL+"/api/artifacts", ct, body)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Errorf("third upload: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if code, _, _ := ts.get(t, "/"); code != 200 {
		t.Error("reads are not rate-limited")
	}
}

func TestDeletePinAndRetention(t *testing.T) {
	ts := newTestServer(t, Config{})
	_, keep, _ := ts.upload(t, fixture(t, "pprof", "flameshow-heap.pb.gz"))
	_, gone, _ := ts.upload(t, fixture(t, "pprof", "flameshow-cpu-10s.pb.gz"))
	resp, err := http.Post(ts.URL+"/api/reports/"+keep.ReportID+"/pin", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("pin: %d", resp.StatusCode)
	}
	// Retention as the server runs it, with everything old enough to go.
	if r, a, err := ts.db.ExpireReports(t.Context(), time.Now().Add(time.Minute)); err != nil || r != 1 || a != 1 {
		t.Fatalf("expired %d reports, %d artifacts (%v)", r, a, err)
	}
	if code, _, _ := ts.get(t, gone.ReportURL); code != 404 {
		t.Errorf("the unpinned report still answers %d", code)
	}
	if code, _, _ := ts.get(t, keep.ReportURL); code != 200 {
		t.Errorf("the pinned report answers %d", code)
	}
	req, _ := http.NewRequest("DELETE", ts.URL+"/api/artifacts/"+keep.Artifacts[0].SHA256, nil)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	if resp.StatusCode != 200 || out["reports_deleted"] != float64(1) {
		t.Errorf("delete: %d %v", resp.StatusCode, out)
	}
	for _, path := range []string{keep.ReportURL, "/a/" + keep.Artifacts[0].SHA256} {
		if code, _, _ := ts.get(t, path); code != 404 {
			t.Errorf("%s after the delete: %d", path, code)
		}
	}
	if a, c, r, _ := ts.db.Counts(t.Context()); a+c+r != 0 {
		t.Errorf("left artifacts %d chunks %d reports %d", a, c, r)
	}
}
