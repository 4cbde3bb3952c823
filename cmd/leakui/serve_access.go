package main

import (
	"flag"
	"fmt"
	"net/netip"
	"net/url"
	"strings"

	"github.com/leakui/leakui/web"
)

// registerAccessFlags registers the flags of how browsers reach the server:
// -base-url, -trusted-proxy and -session-lifetime.
func (m *Main) registerAccessFlags(fs *flag.FlagSet) {
	fs.Func("base-url", "the absolute URL browsers reach this server at, such as https://leakui.example.com (https makes the session cookie Secure)", func(v string) error {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("want an absolute http(s) URL, not %q", v)
		}
		m.BaseURL = strings.TrimRight(v, "/")
		return nil
	})
	fs.Func("trusted-proxy", "address or CIDR of a reverse proxy whose X-Forwarded-Proto is believed, comma-separated or repeated (https there makes the session cookie Secure)", func(v string) error {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s == "" {
				continue
			}
			p, err := netip.ParsePrefix(s)
			if err != nil {
				a, aerr := netip.ParseAddr(s)
				if aerr != nil {
					return fmt.Errorf("want an address or a CIDR prefix, not %q", s)
				}
				p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
			}
			m.TrustedProxies = append(m.TrustedProxies, p.Masked())
		}
		return nil
	})
	fs.DurationVar(&m.SessionLifetime, "session-lifetime", web.DefaultSessionLifetime, "how long a sign-in at /login lasts; /logout ends it sooner")
}
