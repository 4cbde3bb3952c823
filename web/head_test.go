package web

import (
	"io"
	"net/http"
	"testing"
)

// TestHeadAnswersEveryGetRoute sends HEAD wherever GET answers: the same status
// and content type, and no body (HEAD used to answer 405 everywhere, /healthz
// too).
func TestHeadAnswersEveryGetRoute(t *testing.T) {
	ts := newTestServer(t, Config{})
	up := ts.mustUpload(t, nil, fixture(t, "pprof", "flameshow-heap.pb.gz"))
	paths := []string{"/healthz", "/", "/login", up.ReportURL, up.ReportURL + ".md", "/api/reports/" + up.ReportID,
		"/a/" + up.Artifacts[0].SHA256, ts.srv.assets.url("app.css"), "/nowhere"}
	for _, path := range paths {
		get, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, get.Body)
		get.Body.Close()
		head, err := http.Head(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(head.Body)
		head.Body.Close()
		if head.StatusCode != get.StatusCode || head.Header.Get("Content-Type") != get.Header.Get("Content-Type") || len(body) != 0 {
			t.Errorf("HEAD %s: %d %q %d bytes; GET: %d %q", path, head.StatusCode, head.Header.Get("Content-Type"), len(body),
				get.StatusCode, get.Header.Get("Content-Type"))
		}
		if path != "/nowhere" && head.StatusCode != http.StatusOK {
			t.Errorf("HEAD %s: %d", path, head.StatusCode)
		}
	}
	// POST-only routes still refuse HEAD.
	if resp, err := http.Head(ts.URL + "/upload"); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("HEAD /upload: %v %v", resp, err)
	}
}

// TestBearerSchemeIsCaseInsensitive sends the token as "bearer", "BEARER" and
// "Bearer" (RFC 9110 makes the scheme case-insensitive).
func TestBearerSchemeIsCaseInsensitive(t *testing.T) {
	const token = "s3cret-token-for-tests"
	ts := newTestServer(t, Config{Token: token})
	heap := fixture(t, "pprof", "flameshow-heap.pb.gz")
	for _, scheme := range []string{"bearer", "BEARER", "Bearer", "bEaReR"} {
		body, ct := multipartBody(t, []file{heap}, nil)
		req, _ := http.NewRequest("POST", ts.URL+"/api/artifacts", body)
		req.Header.Set("Content-Type", ct)
		req.Header.Set("Authorization", scheme+" "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Errorf("%s: %d", scheme, resp.StatusCode)
		}
	}
	for h, want := range map[string]bool{"Basic " + token: false, "Bearer" + token: false, token: false, "bearer  " + token + " ": true} {
		if got, ok := bearerToken(h); ok != want || (ok && got != token) {
			t.Errorf("bearerToken(%q) = %q, %v", h, got, ok)
		}
	}
}
