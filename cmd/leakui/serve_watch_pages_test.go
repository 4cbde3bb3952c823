package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/watchtarget"
)

// TestServeWatchPages: serve hands its watches to the web, so that the
// served binary's /watch lists a watched program, its page's JSON twin
// counts the snapshots its ticks took, and both need the server's token; a
// server without watches links none from its top bar.
func TestServeWatchPages(t *testing.T) {
	steady := watchtarget.Start(t, "steady")
	s := startServer(t, t.TempDir(), "-token", "page-secret", "-watch", "steady="+steady.URL+",every=1s,keep=8")
	get := func(path, token string) (int, []byte) {
		req, err := http.NewRequest(http.MethodGet, s.base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	if code, _ := get("/watch/steady.json", ""); code != http.StatusUnauthorized {
		t.Errorf("/watch/steady.json without the token: %d, want 401", code)
	}
	var w struct {
		Name      string
		Snapshots int
		Held      []struct{ Profiles map[string]string }
	}
	waitFor(t, 30*time.Second, "two snapshots on the watch's page", func() bool {
		code, b := get("/watch/steady.json", "page-secret")
		return code == http.StatusOK && json.Unmarshal(b, &w) == nil && w.Snapshots >= 2 && len(w.Held) == w.Snapshots
	})
	code, page := get("/watch", "page-secret")
	if code != http.StatusOK || !strings.Contains(string(page), `data-testid="nav-watches"`) ||
		!strings.Contains(string(page), `data-name="steady"`) {
		t.Errorf("/watch: %d %s", code, page)
	}
	s.stop(t)

	bare := startServer(t, t.TempDir())
	resp, err := http.Get(bare.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(string(b), `data-testid="nav-watches"`) {
		t.Error("a server without watches links to them")
	}
	bare.stop(t)
}
