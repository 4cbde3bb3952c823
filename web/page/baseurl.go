package page

import (
	"context"
	"net/http"
	"net/netip"
)

// baseURLKey carries Config.BaseURL in a request's context, for Absolute.
type baseURLKey struct{}

// BaseURL returns the base URL a request's links start with: Config.BaseURL,
// else the scheme and Host the request came with (the host check has passed).
func BaseURL(r *http.Request) string {
	if b, ok := r.Context().Value(baseURLKey{}).(string); ok {
		return b
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// Absolute makes a link for a ticket or an API client: -base-url, else the
// request's own scheme and host, then path.
func Absolute(r *http.Request, path string) string { return BaseURL(r) + path }

// clientAddrKey holds a request's client address in its context.
type clientAddrKey struct{}

// ClientIP is the request's client address as text, for the logs ("" when
// it is not known).
func ClientIP(r *http.Request) string {
	if addr, ok := r.Context().Value(clientAddrKey{}).(netip.Addr); ok {
		return addr.String()
	}
	return ""
}

// WithBaseURL returns ctx carrying the base URL that Absolute starts links with.
func WithBaseURL(ctx context.Context, base string) context.Context {
	return context.WithValue(ctx, baseURLKey{}, base)
}

// WithClientAddr returns ctx carrying the request's client address.
func WithClientAddr(ctx context.Context, addr netip.Addr) context.Context {
	return context.WithValue(ctx, clientAddrKey{}, addr)
}

// ClientAddr is the request's client address, when it is known.
func ClientAddr(r *http.Request) (netip.Addr, bool) {
	addr, ok := r.Context().Value(clientAddrKey{}).(netip.Addr)
	return addr, ok
}
