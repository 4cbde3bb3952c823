package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLoginBruteForceBacksOff sends 20 wrong tokens from one client: the first
// ones get 401, the rest 429 with Retry-After (even the right token, while locked
// out), and the right token from another client still signs in.
func TestLoginBruteForceBacksOff(t *testing.T) {
	const token = "s3cret-token-for-tests"
	ts := newTestServer(t, Config{Token: token})
	login := func(client, tok string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/login", strings.NewReader(url.Values{"token": {tok}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.RemoteAddr = client + ":40000"
		rec := httptest.NewRecorder()
		ts.srv.ServeHTTP(rec, req)
		return rec
	}
	var unauthorized, limited int
	for i := range 20 {
		rec := login("192.0.2.7", "guess-"+strconv.Itoa(i))
		switch rec.Code {
		case http.StatusUnauthorized:
			unauthorized++
		case http.StatusTooManyRequests:
			limited++
			if s, err := strconv.Atoi(rec.Header().Get("Retry-After")); err != nil || s < 1 {
				t.Errorf("attempt %d: Retry-After %q", i, rec.Header().Get("Retry-After"))
			}
		default:
			t.Fatalf("attempt %d: %d %s", i, rec.Code, rec.Body)
		}
	}
	if unauthorized != loginFreeFailures || limited != 20-loginFreeFailures {
		t.Errorf("20 wrong tokens: %d × 401, %d × 429", unauthorized, limited)
	}
	if rec := login("192.0.2.7", token); rec.Code != http.StatusTooManyRequests {
		t.Errorf("the locked-out client signed in: %d", rec.Code)
	}
	if rec := login("192.0.2.8", token); rec.Code != http.StatusSeeOther || !strings.Contains(rec.Header().Get("Set-Cookie"), sessionCookie) {
		t.Errorf("another client with the right token: %d %s", rec.Code, rec.Body)
	}
	// Wrong bearer tokens on the API count too.
	for i := range 10 {
		req := httptest.NewRequest("DELETE", "/api/artifacts/"+strings.Repeat("0", 64), nil)
		req.Header.Set("Authorization", "Bearer guess-"+strconv.Itoa(i))
		req.RemoteAddr = "192.0.2.9:1"
		rec := httptest.NewRecorder()
		ts.srv.ServeHTTP(rec, req)
		if want := http.StatusUnauthorized; i >= loginFreeFailures {
			if rec.Code != http.StatusTooManyRequests {
				t.Errorf("wrong bearer %d: %d", i, rec.Code)
			}
		} else if rec.Code != want {
			t.Errorf("wrong bearer %d: %d", i, rec.Code)
		}
	}
}

// TestLoginLimiterBackOff checks the delays: none for the first failures, then
// doubling up to the cap, and a success forgets them.
func TestLoginLimiterBackOff(t *testing.T) {
	l := newLoginLimiter()
	now := time.Unix(1e9, 0)
	for i := 1; i < loginFreeFailures; i++ {
		if d := l.failed("a", now); d != 0 {
			t.Fatalf("failure %d locked out for %v", i, d)
		}
	}
	var last time.Duration
	for i := range 40 {
		d := l.failed("a", now)
		if d < last || d > loginMaxDelay || (i == 0 && d != loginBaseDelay) || (i == 1 && d != 2*loginBaseDelay) {
			t.Fatalf("failure %d: %v after %v", loginFreeFailures+i, d, last)
		}
		last = d
	}
	if last != loginMaxDelay || l.wait("a", now) != loginMaxDelay || l.wait("b", now) != 0 {
		t.Errorf("cap %v, wait %v", last, l.wait("a", now))
	}
	l.succeeded("a")
	if l.wait("a", now) != 0 {
		t.Error("a success did not forget the failures")
	}
}
