package web

import (
	"bytes"
	"context"
	"fmt"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/lab"
)

// profileRoles are the roles of a run's captures that must be profiles.
var profileRoles = map[string]bool{"heap": true, "goroutine": true, lab.RoleGoroutineLeak: true}

// checkCapture checks a capture's content before it is stored: in a profile's
// role it must load as a profile (not an HTML error page, a redirect's body or
// a truncated file), and be of the type of the run's first capture in the same
// role, so that the run's report can compare them. The error wraps
// analyze.ErrUnsupportedKind, ErrMalformed or ErrMismatch.
func (rr runRecorder) checkCapture(ctx context.Context, runID string, c lab.Capture, sha string) error {
	if !profileRoles[c.Role] {
		return nil
	}
	if det := detectBytes(c.Data); det.Kind != analyze.KindProfile {
		return fmt.Errorf("%w: the %s capture %s is %s, not a pprof profile", analyze.ErrUnsupportedKind, c.Role, c.Name, det.Kind.Description())
	}
	p, err := pprof.Open(pprof.Reader(bytes.NewReader(c.Data)), pprof.Options{Limit: rr.s.cfg.MaxDecompressed})
	if err != nil {
		return fmt.Errorf("the %s capture %s: %w", c.Role, c.Name, err)
	}
	rr.s.profiles.Add(sha, p)
	arts, err := rr.s.store.RunArtifacts(ctx, runID)
	if err != nil {
		return err
	}
	for _, a := range arts {
		if a.Role != c.Role || a.SHA256 == sha {
			continue
		}
		first, err := rr.s.profileKind.Load(ctx, a.SHA256)
		if err != nil {
			return err
		}
		if err := pprof.Comparable(first, p); err != nil {
			return fmt.Errorf("the %s capture %s: %w", c.Role, c.Name, err)
		}
		break
	}
	return nil
}
