package web

import (
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

// TestForwardedClient reads client addresses the way -trusted-proxy makes
// the server read them: the peer's, unless the peer is trusted; then the
// rightmost untrusted hop of X-Forwarded-For, else of Forwarded.
func TestForwardedClient(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	for _, c := range []struct {
		what, peer string
		header     http.Header
		want       string
	}{
		{"no proxy header", "10.1.1.1:5000", nil, "10.1.1.1"},
		{"from an untrusted peer the header is ignored", "192.0.2.9:5000", http.Header{"X-Forwarded-For": {"203.0.113.7"}}, "192.0.2.9"},
		{"one trusted proxy", "10.1.1.1:5000", http.Header{"X-Forwarded-For": {"203.0.113.7"}}, "203.0.113.7"},
		{"what the client wrote left of it is not believed", "10.1.1.1:5000", http.Header{"X-Forwarded-For": {"198.51.100.1, 203.0.113.7"}}, "203.0.113.7"},
		{"two trusted proxies, two header lines", "10.1.1.1:5000", http.Header{"X-Forwarded-For": {"198.51.100.1, 203.0.113.7", "10.2.2.2"}}, "203.0.113.7"},
		{"garbage ends the walk at the last trusted hop", "10.1.1.1:5000", http.Header{"X-Forwarded-For": {"203.0.113.7, junk, 10.2.2.2"}}, "10.2.2.2"},
		{"only trusted hops: the leftmost", "10.1.1.1:5000", http.Header{"X-Forwarded-For": {"10.3.3.3, 10.2.2.2"}}, "10.3.3.3"},
		{"IPv4-mapped", "10.1.1.1:5000", http.Header{"X-Forwarded-For": {"::ffff:203.0.113.7"}}, "203.0.113.7"},
		{"Forwarded without X-Forwarded-For", "10.1.1.1:5000", http.Header{"Forwarded": {`for=198.51.100.1, for="[2001:db8::17]:4711";proto=https`}}, "2001:db8::17"},
		{"Forwarded with a port", "[::1]:5000", http.Header{"Forwarded": {`for="203.0.113.7:47011"`}}, "203.0.113.7"},
		{"Forwarded's unknown ends the walk", "10.1.1.1:5000", http.Header{"Forwarded": {`for=unknown`}}, "10.1.1.1"},
		{"X-Forwarded-For wins over Forwarded", "10.1.1.1:5000", http.Header{"X-Forwarded-For": {"203.0.113.7"}, "Forwarded": {"for=198.51.100.1"}}, "203.0.113.7"},
	} {
		r := &http.Request{RemoteAddr: c.peer, Header: c.header}
		if got := forwardedClient(r, trusted); got.String() != c.want {
			t.Errorf("%s: %s, want %s", c.what, got, c.want)
		}
	}
	if got := forwardedClient(&http.Request{RemoteAddr: "10.1.1.1:5000", Header: http.Header{"X-Forwarded-For": {"203.0.113.7"}}}, nil); got.String() != "10.1.1.1" {
		t.Errorf("without trusted proxies the header was believed: %s", got)
	}
}

// TestClientKeyGroupsIPv6By64 checks that the per-address limits count an
// IPv6 client by its /64 and an IPv4 one by its address.
func TestClientKeyGroupsIPv6By64(t *testing.T) {
	ts := newTestServer(t, Config{})
	for addr, want := range map[string]string{"2001:db8:1:2:aaaa::1": "2001:db8:1:2::/64", "2001:db8:1:2:bbbb::9": "2001:db8:1:2::/64", "203.0.113.7": "203.0.113.7"} {
		var got string
		ts.srv.clientAddress(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got = clientKey(r) })).
			ServeHTTP(nil, &http.Request{RemoteAddr: netip.AddrPortFrom(netip.MustParseAddr(addr), 5000).String(), Header: http.Header{}})
		if got != want {
			t.Errorf("%s counts as %q, want %q", addr, got, want)
		}
	}
}

// TestClientAddressBehindATrustedProxy signs in with wrong tokens through a
// proxy on 127.0.0.1 (-trusted-proxy): the lock-out falls on the address the
// proxy forwards for, not on the proxy, and a client that is not the proxy
// cannot pick its address with the header.
func TestClientAddressBehindATrustedProxy(t *testing.T) {
	ts := newTestServer(t, Config{Token: "the-token", TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	login := func(from, forwardedFor string) int {
		t.Helper()
		req, _ := http.NewRequest("POST", ts.URL+"/login", strings.NewReader(url.Values{"token": {"wrong"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if forwardedFor != "" {
			req.Header.Set("X-Forwarded-For", forwardedFor)
		}
		resp, err := clientAt(t, from).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	// lockedOut signs in wrongly until 429 (true) or 3 times past the free
	// failures (false); each attempt may name another forwarded address.
	lockedOut := func(from string, forwardedFor func(i int) string) bool {
		for i := range loginFreeFailures + 3 {
			if login(from, forwardedFor(i)) == http.StatusTooManyRequests {
				return true
			}
		}
		return false
	}
	if !lockedOut("127.0.0.1", func(int) string { return "203.0.113.7" }) {
		t.Errorf("203.0.113.7, through the proxy, was never locked out")
	}
	if code := login("127.0.0.1", "203.0.113.8"); code != http.StatusUnauthorized {
		t.Errorf("another client behind the same proxy: %d, want 401 (not locked out)", code)
	}
	if !lockedOut("127.0.0.2", func(i int) string { return fmt.Sprintf("198.51.100.%d", i) }) {
		t.Errorf("a direct client that names another address in X-Forwarded-For at each attempt was never locked out: the header was believed")
	}
}
