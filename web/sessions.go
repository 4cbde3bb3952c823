package web

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// sessions are the sign-ins of /login: their cookies, checked against the
// store, and whether a request came over https.
type sessions struct{ *Server }

// DefaultSessionLifetime is how long a sign-in lasts.
const DefaultSessionLifetime = 7 * 24 * time.Hour

// newSessionID returns a random session id: 32 bytes from crypto/rand,
// base64url without padding.
func newSessionID() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand, Go 1.24)
	return base64.RawURLEncoding.EncodeToString(b)
}

// validSession reports whether the request's session cookie names a session
// the store holds and that has not expired. A store that fails counts as no
// session (the request is then treated as signed out, never as signed in).
func (s sessions) validSession(r *http.Request) bool {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" || len(c.Value) > 128 {
		return false
	}
	ok, err := s.store.SessionValid(r.Context(), c.Value, time.Now())
	if err != nil {
		s.log.Warn("checking a session", "err", err)
		return false
	}
	return ok
}

// startSession stores a new session and sets its cookie: HttpOnly,
// SameSite=Strict, Secure when the browser reaches the server over HTTPS
// (secureRequest), expiring with the session.
func (s sessions) startSession(ctx context.Context, w http.ResponseWriter, r *http.Request) error {
	now := time.Now()
	if _, err := s.store.DeleteExpiredSessions(ctx, now); err != nil {
		s.log.Warn("removing expired sessions", "err", err)
	}
	id, expires := newSessionID(), now.Add(s.cfg.SessionLifetime)
	if err := s.store.CreateSession(ctx, id, expires); err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: s.secureRequest(r), Expires: expires, MaxAge: int(s.cfg.SessionLifetime / time.Second),
	})
	return nil
}

// endSession deletes the request's session from the store, so its cookie
// signs in nowhere any more (on every replica), and clears the cookie.
func (s sessions) endSession(ctx context.Context, w http.ResponseWriter, r *http.Request) error {
	if c, err := r.Cookie(sessionCookie); err == nil && c.Value != "" && len(c.Value) <= 128 {
		if err := s.store.DeleteSession(ctx, c.Value); err != nil {
			return err
		}
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: s.secureRequest(r), MaxAge: -1})
	return nil
}

// secureRequest reports whether the browser reached the server over HTTPS:
// the connection is TLS, the configured base URL (-base-url) is https, or the
// request comes from a trusted proxy (-trusted-proxy) that says
// X-Forwarded-Proto: https. The header from anyone else is ignored.
func (s sessions) secureRequest(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	if u, err := url.Parse(s.cfg.BaseURL); err == nil && u.Scheme == "https" {
		return true
	}
	if !s.fromTrustedProxy(r) {
		return false
	}
	proto, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Proto"), ",")
	return strings.EqualFold(strings.TrimSpace(proto), "https")
}

// fromTrustedProxy reports whether the request's peer address is in one of
// the trusted proxies' prefixes.
func (s sessions) fromTrustedProxy(r *http.Request) bool {
	return inPrefixes(peerAddr(r.RemoteAddr), s.cfg.TrustedProxies)
}
