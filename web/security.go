package web

import (
	"net/http"

	"github.com/leakui/leakui/web/serrors"
)

// contentSecurityPolicy allows only the server's own scripts and styles: no inline
// script, no eval, no framing, no plugins. Whatever a profile, dump or log contains
// cannot run as script even if it ever escaped its escaping.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// securityHeaders sets the headers every response carries.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}

// crossOriginProtection refuses state-changing requests that a browser sends from
// another site (cross-site request forgery); curl and API clients, which send no
// Origin or Sec-Fetch-Site header, are not affected.
func (s *Server) crossOriginProtection(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(s.handle(func(w http.ResponseWriter, r *http.Request) error {
		return serrors.Errorf(http.StatusForbidden, "cross-origin %s refused: this request came from another site", r.Method)
	}))
	return cop.Handler(next)
}
