package web

import (
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/leakui/leakui/web/page"
)

// clientAddress finds each request's client address, which the per-address
// limits (throttle shares, rates, the sign-in lock-out, quotas, the heap dump
// queue) and the logs use: the connection's peer, or, when the peer is one of
// Config.TrustedProxies (-trusted-proxy), the address that proxy says it
// forwards for. Only then is a proxy header believed; from anyone else it is
// ignored, so a client cannot choose its own address.
func (s *Server) clientAddress(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		addr := forwardedClient(r, s.cfg.TrustedProxies)
		if addr.IsValid() {
			r = r.WithContext(page.WithClientAddr(r.Context(), addr))
		}
		next.ServeHTTP(w, r)
	})
}

// forwardedClient is the request's client address: the peer's, unless the
// peer is a trusted proxy; then the chain of X-Forwarded-For (or, when there is
// none, Forwarded's for= parameters) is walked from the right, past the
// trusted proxies, and the first address not trusted is the client. An entry
// that is not an address (garbage, "unknown", an obfuscated name) ends the
// walk at the last trusted hop: nothing further left can be believed. A chain
// of trusted addresses only gives its leftmost.
func forwardedClient(r *http.Request, trusted []netip.Prefix) netip.Addr {
	peer := peerAddr(r.RemoteAddr)
	if !peer.IsValid() || !inPrefixes(peer, trusted) {
		return peer
	}
	chain := forwardedChain(r.Header)
	client := peer
	for i := len(chain) - 1; i >= 0; i-- {
		addr, ok := parseForwardedAddr(chain[i])
		if !ok {
			return client
		}
		client = addr
		if !inPrefixes(addr, trusted) {
			return addr
		}
	}
	return client
}

// forwardedChain lists the addresses a request went through, the nearest
// last: X-Forwarded-For's entries over all its header lines, or, without
// that header, the for= parameters of Forwarded's elements (RFC 7239).
func forwardedChain(h http.Header) []string {
	var chain []string
	if xff := h.Values("X-Forwarded-For"); len(xff) > 0 {
		for _, line := range xff {
			for entry := range strings.SplitSeq(line, ",") {
				if entry = strings.TrimSpace(entry); entry != "" {
					chain = append(chain, entry)
				}
			}
		}
		return chain
	}
	for _, line := range h.Values("Forwarded") {
		for element := range strings.SplitSeq(line, ",") {
			for pair := range strings.SplitSeq(element, ";") {
				key, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
				if ok && strings.EqualFold(strings.TrimSpace(key), "for") {
					chain = append(chain, strings.Trim(strings.TrimSpace(value), `"`))
				}
			}
		}
	}
	return chain
}

// parseForwardedAddr reads one hop's address: "192.0.2.1", "192.0.2.1:4711",
// "2001:db8::1" or "[2001:db8::1]:4711", IPv4-mapped addresses as IPv4 and
// without a zone.
func parseForwardedAddr(s string) (netip.Addr, bool) {
	if addr, err := netip.ParseAddr(s); err == nil {
		return addr.Unmap().WithZone(""), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone(""), true
	}
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		if addr, err := netip.ParseAddr(s[1 : len(s)-1]); err == nil {
			return addr.Unmap().WithZone(""), true
		}
	}
	return netip.Addr{}, false
}

// peerAddr is the address of a request's connection (RemoteAddr), IPv4-mapped
// addresses as IPv4; invalid when it is not one.
func peerAddr(remote string) netip.Addr {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return addr.Unmap()
}

// inPrefixes reports whether addr is in one of the prefixes.
func inPrefixes(addr netip.Addr, prefixes []netip.Prefix) bool {
	addr = addr.WithZone("")
	for _, p := range prefixes {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// clientKey is what the per-address limits count a request under: its client
// address, but for IPv6 the /64 network it is in, since one host may hold a
// whole /64 and pick a new address for every request.
func clientKey(r *http.Request) string {
	addr, ok := page.ClientAddr(r)
	if !ok {
		return ""
	}
	if addr.Is6() {
		p, _ := addr.WithZone("").Prefix(64)
		return p.String()
	}
	return addr.String()
}
