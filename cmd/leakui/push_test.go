package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCapturePushes runs `leakui capture go URL -push SERVER -incident SLUG
// -label L` against a real pprof endpoint and a real `leakui serve` with a
// token: the bundle uploads as one capture report, standard output is the
// report's URL alone, the report is found by its labels on the dashboard, and
// no temporary bundle is left behind. A wrong token, a bad slug and -o - with
// -push fail with a clear message and upload nothing.
func TestCapturePushes(t *testing.T) {
	target := pprofServer(t, true)
	const token = "push-token-of-the-test"
	s := startServer(t, t.TempDir(), "-token", token)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	capture := func(env string, args ...string) (int, string, string) {
		t.Setenv("LEAKUI_TOKEN", env)
		var stdout, stderr bytes.Buffer
		argv := append([]string{"capture", "go", target.URL}, args...)
		code := run(context.Background(), argv, stdio{strings.NewReader(""), &stdout, &stderr})
		return code, stdout.String(), stderr.String()
	}

	code, out, errs := capture(token, "-push", s.base, "-incident", "checkout-oom", "-label", "pod-7")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	reportURL := strings.TrimSpace(out)
	u, err := url.Parse(reportURL)
	if err != nil || !strings.HasPrefix(u.Path, "/r/") || strings.Contains(reportURL, "\n") {
		t.Fatalf("standard output %q is not one report URL", out)
	}
	if !strings.Contains(errs, "labelled incident:checkout-oom") {
		t.Errorf("stderr does not say the incident:\n%s", errs)
	}
	id := strings.TrimPrefix(u.Path, "/r/")
	var doc struct {
		Kind string `json:"kind"`
	}
	if code := s.getJSONAuth(t, "/api/reports/"+id, token, &doc); code != 200 || doc.Kind != "capture" {
		t.Fatalf("GET /api/reports/%s: %d, kind %q", id, code, doc.Kind)
	}
	for _, q := range []string{"incident:checkout-oom", "pod-7"} {
		page := s.getAuth(t, "/?q="+url.QueryEscape(q), token)
		if !strings.Contains(page, "/r/"+id) {
			t.Errorf("the dashboard's search for %q does not find the pushed report", q)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "leakui-push-*")); len(left) != 0 {
		t.Errorf("temporary bundles left: %v", left)
	}

	// -o and -push: the file stays.
	kept := filepath.Join(t.TempDir(), "kept.tar.gz")
	if code, _, errs := capture(token, "-o", kept, "-push", s.base); code != 0 {
		t.Fatalf("-o and -push: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("-o with -push: %v", err)
	}

	for _, c := range []struct {
		name, env string
		args      []string
		exit      int
		say       string
	}{
		{"wrong token", "not-the-token", []string{"-push", s.base}, 1, "401"},
		{"bad slug", token, []string{"-push", s.base, "-incident", "Not A Slug"}, 2, "is not an incident's slug"},
		{"stdout and push", token, []string{"-o", "-", "-push", s.base}, 2, "-o - writes the bundle on standard output"},
		{"incident without push", token, []string{"-o", kept, "-incident", "x"}, 2, "go with -push"},
		{"not a server", token, []string{"-push", "ftp://example.com"}, 2, "is not the http(s) URL"},
	} {
		code, out, errs := capture(c.env, c.args...)
		if code != c.exit || !strings.Contains(errs, c.say) || strings.Contains(out, "/r/") {
			t.Errorf("%s: exit %d (want %d), stdout %q, stderr lacks %q:\n%s", c.name, code, c.exit, out, c.say, errs)
		}
	}
}

// getAuth GETs path from the server with the token and returns the body; a
// status other than 200 fails the test.
func (s *server) getAuth(t *testing.T, path, token string) string {
	t.Helper()
	code, body := s.getWithToken(t, path, token)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	return string(body)
}

// getJSONAuth GETs path with the token and decodes its JSON into v.
func (s *server) getJSONAuth(t *testing.T, path, token string, v any) int {
	t.Helper()
	code, body := s.getWithToken(t, path, token)
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	return code
}

func (s *server) getWithToken(t *testing.T, path, token string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	if !strings.HasPrefix(path, "/api/") {
		req.Header.Del("Accept")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}
