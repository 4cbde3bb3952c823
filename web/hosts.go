package web

import (
	"net"
	"net/http"
	"strings"

	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
)

// hostAllowList decides which Host headers the server answers to, so that a page
// on another site cannot reach it through a domain name rebound to its address
// (DNS rebinding).
type hostAllowList struct {
	// any turns the check off (the entry "*").
	any bool
	// exact holds "host:port" entries, lower case; names holds entries without a
	// port, which match that host on any port.
	exact, names map[string]bool
	// loopback allows the loopback names on any port (the default of a Config
	// without AllowedHosts).
	loopback bool
}

// newHostAllowList reads Config.AllowedHosts: "host:port" matches exactly,
// "host" matches on any port, "*" turns the check off, and an empty list allows
// localhost, 127.0.0.1 and [::1] on any port.
func newHostAllowList(entries []string) *hostAllowList {
	l := &hostAllowList{exact: map[string]bool{}, names: map[string]bool{}}
	for _, e := range entries {
		e = normalizeHost(e)
		switch {
		case e == "":
		case e == "*":
			l.any = true
		case hasPort(e):
			l.exact[e] = true
		default:
			l.names[strings.Trim(e, "[]")] = true
		}
	}
	if len(l.exact) == 0 && len(l.names) == 0 && !l.any {
		l.loopback = true
	}
	return l
}

// normalizeHost lowers a host (or host:port) and drops the trailing dot of a
// fully qualified name.
func normalizeHost(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	if host, port, err := net.SplitHostPort(h); err == nil {
		return net.JoinHostPort(strings.TrimSuffix(host, "."), port)
	}
	return strings.TrimSuffix(h, ".")
}

// hasPort reports whether h ends in a port.
func hasPort(h string) bool {
	_, _, err := net.SplitHostPort(h)
	return err == nil
}

// allows reports whether a request's Host header is one the server answers to.
func (l *hostAllowList) allows(hostHeader string) bool {
	if l.any {
		return true
	}
	h := normalizeHost(hostHeader)
	if h == "" {
		return false
	}
	if l.exact[h] {
		return true
	}
	name := h
	if host, _, err := net.SplitHostPort(h); err == nil {
		name = host
	}
	name = strings.Trim(name, "[]")
	if l.names[name] {
		return true
	}
	return l.loopback && (name == "localhost" || name == "127.0.0.1" || name == "::1")
}

// checkHost refuses, with 421 Misdirected Request, a request whose Host header
// is not in Config.AllowedHosts. A request served in process, without a
// connection (a test's httptest.NewRequest), has no Host worth checking and
// passes.
func (s *Server) checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Context().Value(http.LocalAddrContextKey) == nil || s.hosts.allows(r.Host) {
			next.ServeHTTP(w, r)
			return
		}
		host := r.Host
		if len(host) > 100 {
			host = host[:100] + "…"
		}
		s.log.Warn("request for another host refused", "host", host, "client", page.ClientIP(r))
		s.writeError(w, r, serrors.Errorf(http.StatusMisdirectedRequest,
			"this server does not answer to the host name %q (a DNS rebinding attempt, or a name missing from -allowed-hosts)", host))
	})
}
