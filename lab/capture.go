package lab

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// maxCaptureBytes bounds one captured profile.
const maxCaptureBytes = 256 << 20

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
// form. A run that models a quiet heap is captured without a GC, which would run
// the cleanups the run is about.
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
	return out, nil
}
