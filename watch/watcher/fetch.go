package watcher

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/leakui/leakui/watch"
)

// errNotServed is a 404: the target does not serve the path.
var errNotServed = errors.New("not served (404)")

// sameOrigin is the scrape client's redirect policy: a redirect is followed
// only within the target's scheme, host and port, at most five times, so that
// a target never makes leakui fetch (and store) what another host serves.
func sameOrigin(req *http.Request, via []*http.Request) error {
	first := via[0].URL
	if req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
		return fmt.Errorf("the target redirected to %s://%s, another origin; a watch follows redirects only within its target", req.URL.Scheme, req.URL.Host)
	}
	if len(via) >= 5 {
		return errors.New("the target redirected five times")
	}
	return nil
}

// newClient is the scrape client: no proxy from the environment, no cookies,
// redirects within the target only.
func newClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	tr.MaxIdleConnsPerHost = 2
	tr.IdleConnTimeout = 90 * time.Second
	tr.ResponseHeaderTimeout = 30 * time.Second
	tr.MaxResponseHeaderBytes = 64 << 10
	return &http.Client{Transport: tr, CheckRedirect: sameOrigin}
}

// UserAgent is the scrapes' User-Agent; TickHeader carries the tick a scrape
// belongs to (RFC 3339, UTC), so that a target's logs tell the ticks apart.
const (
	UserAgent  = "leakui-watch"
	TickHeader = "Leakui-Tick"
)

// authorization is the Authorization header a declaration's credentials
// make ("" for none), read from their secret at each scrape, so that a
// rotated file is read again. The error names where the secret is, never
// the secret.
func authorization(d watch.Declaration) (string, error) {
	switch {
	case !d.Bearer.IsZero():
		tok, err := d.Bearer.Read()
		if err != nil {
			return "", fmt.Errorf("the target's bearer token: %w", err)
		}
		return "Bearer " + tok, nil
	case !d.Basic.IsZero():
		up, err := d.Basic.Read()
		user, pass, ok := strings.Cut(up, ":")
		if err != nil || !ok {
			return "", fmt.Errorf("the target's basic credentials (%s): want user:password (%v)", d.Basic, err)
		}
		r := &http.Request{Header: http.Header{}}
		r.SetBasicAuth(user, pass)
		return r.Header.Get("Authorization"), nil
	}
	return "", nil
}

// fetch GETs url within ctx for tick, with the Authorization header auth
// (none when ""), reading at most limit bytes of its body: a larger body is
// an error, read no further. A 401 or 403 says the credentials were refused.
func fetch(ctx context.Context, client *http.Client, url string, tick time.Time, limit int64, auth string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set(TickHeader, tick.UTC().Format(time.RFC3339Nano))
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("GET %s: %w", url, errNotServed)
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		what := "requires credentials (declare bearer= or basic= with the watch)"
		if auth != "" {
			what = "refused the watch's credentials"
		}
		return nil, fmt.Errorf("GET %s: %s: the target %s", url, resp.Status, what)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	if resp.ContentLength > limit {
		return nil, fmt.Errorf("GET %s: %d bytes, more than the limit of %d", url, resp.ContentLength, limit)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("GET %s: more than the limit of %d bytes", url, limit)
	}
	return b, nil
}
