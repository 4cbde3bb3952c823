package watcher

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
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

// fetch GETs url within ctx for tick, reading at most limit bytes of its
// body: a larger body is an error, read no further.
func fetch(ctx context.Context, client *http.Client, url string, tick time.Time, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
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
