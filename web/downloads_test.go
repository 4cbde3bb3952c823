package web

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// getFrom GETs path from the loopback address from with the header pairs and
// returns the status and body.
func getFrom(t *testing.T, ts *testServer, from, path string, header ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", ts.URL+path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := clientAt(t, from).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestPrefixDownloadsFollowTheAccessRule checks /a/ on a server with a token
// and without -private: the whole SHA-256 serves the file to anyone (a
// report's page gives it), a prefix only with the token (401 without it).
func TestPrefixDownloadsFollowTheAccessRule(t *testing.T) {
	const token = "the-token"
	ts := newTestServer(t, Config{Token: token})
	body, ct := multipartBody(t, []file{{"heap.txt", []byte("goroutine 1 [running]:\nmain.main()\n")}}, nil)
	req, _ := http.NewRequest("POST", ts.URL+"/api/artifacts", body)
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	sha := string(raw[strings.Index(string(raw), `"sha256": "`)+11:])[:64]
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("upload: %d %s", resp.StatusCode, raw)
	}
	for _, c := range []struct {
		what, path string
		header     []string
		want       int
	}{
		{"the whole SHA-256 without the token", "/a/" + sha, nil, http.StatusOK},
		{"a 12-hex prefix without the token", "/a/" + sha[:12], nil, http.StatusUnauthorized},
		{"a 63-hex prefix without the token", "/a/" + sha[:63], nil, http.StatusUnauthorized},
		{"a 12-hex prefix with the token", "/a/" + sha[:12], []string{"Authorization", "Bearer " + token}, http.StatusOK},
	} {
		code, body := getFrom(t, ts, "127.0.0.1", c.path, c.header...)
		if code != c.want {
			t.Errorf("%s: %d %.200s, want %d", c.what, code, body, c.want)
		}
	}
}

// TestDownloadMissesLockTheAddressOut asks 127.0.0.2 for files that are not
// there: after the free failures each miss locks its address out for twice
// as long (429 with Retry-After, waited out here), even for a file that is
// there, while 127.0.0.3 still gets its answers.
func TestDownloadMissesLockTheAddressOut(t *testing.T) {
	ts := newTestServer(t, Config{})
	up := ts.mustUpload(t, nil, file{"heap.txt", []byte("goroutine 1 [running]:\nmain.main()\n")})
	sha := up.Artifacts[0].SHA256
	missing := strings.Repeat("0", 64)
	client := clientAt(t, "127.0.0.2")
	// Seven misses: the fifth locks the address out for 1 s, the sixth for
	// 2 s, the seventh for 4 s.
	misses, refused := 0, 0
	for misses < loginFreeFailures+2 {
		resp, err := client.Get(ts.URL + "/a/" + missing)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusNotFound:
			misses++
		case http.StatusTooManyRequests:
			refused++
			secs, err := strconv.Atoi(resp.Header.Get("Retry-After"))
			if err != nil || secs < 1 || secs > 4 || misses < loginFreeFailures {
				t.Fatalf("429 after %d misses with Retry-After %q", misses, resp.Header.Get("Retry-After"))
			}
			time.Sleep(time.Duration(secs) * time.Second)
		default:
			t.Fatalf("a download of a file that is not there: %d", resp.StatusCode)
		}
	}
	if refused == 0 {
		t.Errorf("%d misses in a row were never refused", misses)
	}
	if code, body := getFrom(t, ts, "127.0.0.2", "/a/"+sha); code != http.StatusTooManyRequests || !strings.Contains(body, "downloads of unknown files") {
		t.Errorf("a file that is there, from the locked-out address: %d %.200s, want 429", code, body)
	}
	if code, _ := getFrom(t, ts, "127.0.0.3", "/a/"+missing[:12]); code != http.StatusNotFound {
		t.Errorf("another address: %d, want 404", code)
	}
	if code, _ := getFrom(t, ts, "127.0.0.3", "/a/"+sha[:12]); code != http.StatusOK {
		t.Errorf("another address, a prefix of a file that is there: %d, want 200", code)
	}
}
