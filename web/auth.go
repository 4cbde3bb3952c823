package web

import (
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
	"github.com/leakui/leakui/web/view"
)

// sessionCookie carries a browser's session: a random id that the store knows
// (web/sessions.go) until it expires or /logout ends it.
const sessionCookie = "leakui_session"

// authorized reports whether the request carries the server's token, as a bearer
// token or as the session cookie. Without a configured token everyone is.
func (s *Server) authorized(r *http.Request) bool {
	if s.cfg.Token == "" {
		return true
	}
	if h := r.Header.Get("Authorization"); h != "" {
		given, ok := bearerToken(h)
		return ok && subtle.ConstantTimeCompare([]byte(given), []byte(s.cfg.Token)) == 1
	}
	return sessions{s}.validSession(r)
}

// bearerToken takes the token out of an Authorization header; the scheme is
// matched without regard to case ("bearer" works as "Bearer" does, RFC 9110).
func bearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// access enforces the token when one is configured: every request that changes
// state (uploads, runs, cancels, deletes, pins) needs it; reads of a report stay
// possible by its unguessable id unless the server is private. Signing in, the
// health check and the static files are always open.
func (s *Server) access(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.Token == "" || openPath(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		// A bearer token is guessed through the API as well as at /login, so
		// wrong ones count against the same back-off.
		bearer := r.Header.Get("Authorization") != ""
		if bearer {
			if wait := s.logins.wait(clientKey(r), time.Now()); wait > 0 {
				s.writeError(w, r, tooManySignIns(w, wait))
				return
			}
		}
		if s.authorized(r) {
			next.ServeHTTP(w, r)
			return
		}
		if bearer {
			s.logins.failed(clientKey(r), time.Now())
		}
		safe := r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions
		if safe && !s.cfg.Private {
			next.ServeHTTP(w, r)
			return
		}
		s.writeError(w, r, s.unauthorized(r))
	})
}

// openPath lists what needs no token even on a private server.
func openPath(path string) bool {
	return path == "/login" || path == "/logout" || path == "/healthz" || path == "/readyz" || strings.HasPrefix(path, "/static/")
}

// unauthorized explains how to authenticate.
func (s *Server) unauthorized(r *http.Request) error {
	if page.WantsJSON(r) {
		return serrors.Errorf(http.StatusUnauthorized, "this server needs its token: send Authorization: Bearer TOKEN")
	}
	return serrors.Errorf(http.StatusUnauthorized, "this server needs its token: sign in at /login")
}

// handleLoginPage is GET /login.
func (s *Server) handleLoginPage(w http.ResponseWriter, r *http.Request) error {
	return s.render(w, r, http.StatusOK, view.Page{Title: "sign in"}, view.LoginPage(s.cfg.Token != "", s.authorized(r)))
}

// handleLogin is POST /login with the token: it starts a session, sets its
// cookie (HttpOnly, SameSite=Strict, Secure behind HTTPS) and goes to the
// dashboard. A client that keeps sending wrong
// tokens is locked out with a growing delay (429 with Retry-After).
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, 8<<10)
	if err := r.ParseForm(); err != nil {
		return serrors.Errorf(http.StatusBadRequest, "bad form: %v", err)
	}
	client := clientKey(r)
	if wait := s.logins.wait(client, time.Now()); wait > 0 {
		return tooManySignIns(w, wait)
	}
	if s.cfg.Token == "" || subtle.ConstantTimeCompare([]byte(r.PostForm.Get("token")), []byte(s.cfg.Token)) != 1 {
		lockout := s.logins.failed(client, time.Now())
		s.log.Warn("sign-in refused", "client", client, "locked_out", lockout)
		return serrors.Errorf(http.StatusUnauthorized, "wrong token")
	}
	s.logins.succeeded(client)
	if err := (sessions{s}).startSession(r.Context(), w, r); err != nil {
		return err
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
	return nil
}

// handleLogout is POST /logout: the session ends in the store, so its cookie
// is refused everywhere from now on, and the cookie is cleared.
func (s *Server) handleLogout(w http.ResponseWriter, r *http.Request) error {
	if err := (sessions{s}).endSession(r.Context(), w, r); err != nil {
		return err
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
	return nil
}
