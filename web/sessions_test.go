package web

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"
)

// login posts the token to /login with the given headers and returns the
// session cookie's value and its Set-Cookie header.
func login(t *testing.T, base, token string, header ...string) (value, raw string) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/login", strings.NewReader(url.Values{"token": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == sessionCookie {
			return c.Value, resp.Header.Get("Set-Cookie")
		}
	}
	t.Fatalf("POST /login: %d without a session cookie", resp.StatusCode)
	return "", ""
}

// withSession GETs or POSTs path with a session cookie and returns the status.
func withSession(t *testing.T, method, url, session string) int {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: session})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestSessionsAreServerSide checks sign-ins on a private server: each login
// gets a new random id that reveals nothing of the token, another replica on
// the same store accepts it, /logout revokes it on both while another session
// lives on, and a session past its lifetime is refused.
func TestSessionsAreServerSide(t *testing.T) {
	const token = "a-long-enough-secret-token"
	a := newTestServer(t, Config{Token: token, Private: true})
	bSrv, err := NewServer(Config{Store: a.db, Token: token, Private: true, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	b := httptest.NewServer(bSrv)
	t.Cleanup(func() { bSrv.BeginShutdown(); b.Close(); bSrv.Close() })

	one, _ := login(t, a.URL, token)
	two, _ := login(t, a.URL, token)
	if one == two || len(one) < 40 || strings.Contains(one, token) {
		t.Fatalf("two logins gave the session ids %q and %q", one, two)
	}
	for _, base := range []string{a.URL, b.URL} {
		if code := withSession(t, "GET", base+"/", one); code != http.StatusOK {
			t.Errorf("%s with a fresh session: %d", base, code)
		}
	}
	if code := withSession(t, "GET", a.URL+"/", "forged-"+one); code != http.StatusUnauthorized {
		t.Errorf("a forged session: %d", code)
	}
	if code := withSession(t, "POST", b.URL+"/logout", one); code != http.StatusSeeOther {
		t.Fatalf("POST /logout: %d", code)
	}
	for _, base := range []string{a.URL, b.URL} {
		if code := withSession(t, "GET", base+"/", one); code != http.StatusUnauthorized {
			t.Errorf("%s after /logout: %d, want 401", base, code)
		}
		if code := withSession(t, "GET", base+"/", two); code != http.StatusOK {
			t.Errorf("%s with the other session after /logout: %d", base, code)
		}
	}

	short := newTestServer(t, Config{Token: token, Private: true, SessionLifetime: time.Nanosecond})
	expired, _ := login(t, short.URL, token)
	if code := withSession(t, "GET", short.URL+"/", expired); code != http.StatusUnauthorized {
		t.Errorf("a session past its lifetime: %d, want 401", code)
	}
}

// TestSessionCookieSecure checks when the session cookie is Secure: with an
// https -base-url, and behind a trusted proxy that says X-Forwarded-Proto:
// https; not when an untrusted peer says so, nor on plain HTTP.
func TestSessionCookieSecure(t *testing.T) {
	const token = "a-long-enough-secret-token"
	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	elsewhere := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	for _, c := range []struct {
		name   string
		cfg    Config
		header []string
		secure bool
	}{
		{"plain http", Config{}, nil, false},
		{"https base url", Config{BaseURL: "https://leakui.example.com"}, nil, true},
		{"trusted proxy says https", Config{TrustedProxies: loopback}, []string{"X-Forwarded-Proto", "https"}, true},
		{"trusted proxy says http", Config{TrustedProxies: loopback}, []string{"X-Forwarded-Proto", "http"}, false},
		{"untrusted peer says https", Config{TrustedProxies: elsewhere}, []string{"X-Forwarded-Proto", "https"}, false},
		{"no proxy trusted", Config{}, []string{"X-Forwarded-Proto", "https"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.cfg.Token = token
			ts := newTestServer(t, c.cfg)
			_, raw := login(t, ts.URL, token, c.header...)
			if got := strings.Contains(raw, "; Secure"); got != c.secure || !strings.Contains(raw, "HttpOnly") {
				t.Errorf("Set-Cookie %q: Secure %v, want %v", raw, got, c.secure)
			}
		})
	}
}
