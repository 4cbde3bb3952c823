package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// maxCaptureBytes bounds one captured profile.
const maxCaptureBytes = 256 << 20

// RoleGoroutineLeak is the role of a capture of /debug/pprof/goroutineleak: the Go
// runtime's proof of leaked goroutines, served by programs built with
// GOEXPERIMENT=goroutineleakprofile (Go 1.26). It is taken with the goroutine
// profile when the target serves it; a target that answers 404 has none.
const RoleGoroutineLeak = "goroutineleak"

// sameOrigin is the capture client's redirect policy: a redirect is followed
// only to the scheme, host and port the request went to (a pprof handler's own
// redirect), at most five times. A target that redirects elsewhere would make
// the lab fetch, and store, whatever another host serves.
func sameOrigin(req *http.Request, via []*http.Request) error {
	first := via[0].URL
	if req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
		return fmt.Errorf("the target redirected to %s://%s, another origin; captures follow redirects only within the target", req.URL.Scheme, req.URL.Host)
	}
	if len(via) >= 5 {
		return errors.New("the target redirected five times")
	}
	return nil
}

// errNotServed is fetch's error for a 404: the target does not serve the path.
var errNotServed = errors.New("not served")

// fetchOptional is fetch for an endpoint a target may lack: a 404 gives no data
// and no error.
func fetchOptional(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	b, err := fetch(ctx, client, url)
	if errors.Is(err, errNotServed) {
		return nil, nil
	}
	return b, err
}

// fetch GETs a URL with a timeout and a size bound.
func fetch(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("GET %s: %s: %w", url, resp.Status, errNotServed)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxCaptureBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxCaptureBytes {
		return nil, fmt.Errorf("GET %s: more than %d bytes", url, maxCaptureBytes)
	}
	return b, nil
}

// captureProfiles takes a heap profile (after a GC when gc is set, so it shows what
// is live) and a goroutine profile from a pprof endpoint, both in profile.proto
// form, and, when gc is set and the target serves it, the goroutineleak profile
// (RoleGoroutineLeak). A run that models a quiet heap is captured without a GC,
// which would run the cleanups the run is about; the goroutineleak profile runs a
// GC of its own, so such a run is captured without it.
func captureProfiles(ctx context.Context, client *http.Client, base string, step int64, gc bool, now func() time.Time) ([]Capture, error) {
	heap := "/debug/pprof/heap"
	if gc {
		heap += "?gc=1"
	}
	var out []Capture
	for _, p := range []struct{ role, path string }{
		{"heap", heap},
		{"goroutine", "/debug/pprof/goroutine"},
	} {
		b, err := fetch(ctx, client, base+p.path)
		if err != nil {
			return out, err
		}
		out = append(out, Capture{Role: p.role, Step: step, Name: fmt.Sprintf("%s-%05d.pb.gz", p.role, step), Data: b, TakenAt: now()})
	}
	if !gc {
		return out, nil
	}
	b, err := fetchOptional(ctx, client, base+"/debug/pprof/goroutineleak")
	if err != nil || b == nil {
		return out, err
	}
	return append(out, Capture{Role: RoleGoroutineLeak, Step: step, Name: fmt.Sprintf("%s-%05d.pb.gz", RoleGoroutineLeak, step), Data: b, TakenAt: now()}), nil
}
