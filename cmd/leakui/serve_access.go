package main

import (
	"flag"
	"fmt"
	"net/netip"
	"strings"

	"github.com/leakui/leakui/web"
)

// registerAccessFlags registers the flags of how browsers reach the server:
// -trusted-proxy (whose requests' client address is the one the proxy
// forwards for) and -session-lifetime (-base-url is registered with the other
// serve flags).
func (m *Main) registerAccessFlags(fs *flag.FlagSet) {
	fs.Func("trusted-proxy", "address or CIDR of a reverse proxy to trust, comma-separated or repeated: behind it the client address is the one X-Forwarded-For (else Forwarded) names, and its X-Forwarded-Proto https makes the session cookie Secure", func(v string) error {
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
