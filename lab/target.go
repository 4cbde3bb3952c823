package lab

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"
)

// WorkloadCapture is the kind of run that captures a series from a live target.
const WorkloadCapture = "capture"

// TargetSpec asks for a series of snapshots of one live target.
type TargetSpec struct {
	// Target is an operator-configured name, never a URL from the browser.
	Target string `json:"target"`
	// What is "heap" or "goroutine".
	What     string        `json:"what"`
	Interval time.Duration `json:"interval"`
	Count    int           `json:"count"`
}

// Targets maps operator-configured names to pprof base URLs (-target name=url).
type Targets map[string]string

// ParseTarget reads one -target flag value, "name=http://host:port[/path]". The
// base URL may not carry credentials, a query or a fragment: the lab appends
// /debug/pprof/… to it.
func ParseTarget(s string) (name, base string, err error) {
	name, raw, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return "", "", fmt.Errorf("want name=http://host:port, not %q", s)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", fmt.Errorf("target %s: want an http(s) URL of a pprof endpoint, not %q", name, raw)
	}
	if u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(raw, "#") {
		return "", "", fmt.Errorf("target %s: want scheme://host:port[/path] without credentials, query or fragment, not %q", name, raw)
	}
	return name, u.Scheme + "://" + u.Host + strings.TrimRight(u.EscapedPath(), "/"), nil
}

// Names lists the targets in order.
func (t Targets) Names() []string {
	out := make([]string, 0, len(t))
	for n := range t {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Normalize checks a target spec: a known name, a sensible interval and count.
func (ts *TargetSpec) Normalize(targets Targets) error {
	if _, ok := targets[ts.Target]; !ok {
		return fmt.Errorf("%w: %q is not one of the targets this server was started with (%s)", ErrUnknownTarget, ts.Target, strings.Join(targets.Names(), ", "))
	}
	if ts.What == "" {
		ts.What = "heap"
	}
	if ts.What != "heap" && ts.What != "goroutine" {
		return fmt.Errorf("%w: what must be heap or goroutine, not %q", ErrInvalidSpec, ts.What)
	}
	if ts.Interval == 0 {
		ts.Interval = 10 * time.Second
	}
	if ts.Count == 0 {
		ts.Count = 10
	}
	if ts.Interval < time.Second || ts.Interval > time.Hour {
		return fmt.Errorf("%w: interval must be between 1s and 1h, not %s", ErrInvalidSpec, ts.Interval)
	}
	if ts.Count < 3 || ts.Count > 200 {
		return fmt.Errorf("%w: count must be between 3 and 200, not %d", ErrInvalidSpec, ts.Count)
	}
	return nil
}

// Title describes the capture.
func (ts TargetSpec) Title() string {
	return fmt.Sprintf("capture %s of %s, %d × every %s", ts.What, ts.Target, ts.Count, ts.Interval)
}

// StartCapture captures a series of profiles from a configured target in the
// background, as a run: progress, captures and an end recorded like a workload's.
// The spec's Workload is WorkloadCapture and its Variant the target name.
func (m *Manager) StartCapture(id string, ts TargetSpec, targets Targets, record func(Spec) error) (*Run, error) {
	if err := ts.Normalize(targets); err != nil {
		return nil, err
	}
	base := targets[ts.Target]
	spec := Spec{Workload: WorkloadCapture, Variant: ts.Target, Mode: ts.What, Cycles: ts.Count}
	initial := Progress{Steps: int64(ts.Count), StepName: "snapshot"}
	return m.launch(id, spec, initial, record, func(ctx context.Context, run *Run) { m.captureSeries(ctx, run, base, ts) })
}

// captureSeries takes ts.Count snapshots, ts.Interval apart; a goroutine capture
// also takes the target's goroutineleak profile (RoleGoroutineLeak) while the target
// serves it.
func (m *Manager) captureSeries(ctx context.Context, run *Run, base string, ts TargetSpec) {
	log := m.log.With("run", run.ID, "target", ts.Target)
	path := "/debug/pprof/heap"
	if ts.What == "goroutine" {
		path = "/debug/pprof/goroutine"
	}
	var failure error
	leakServed := true
	tick := time.NewTicker(ts.Interval)
	defer tick.Stop()
	for k := 1; k <= ts.Count; k++ {
		b, err := fetch(ctx, m.client, base+path)
		if err != nil {
			failure = fmt.Errorf("snapshot %d from %s: %w", k, ts.Target, err)
			break
		}
		c := Capture{Role: ts.What, Step: int64(k), Name: fmt.Sprintf("%s-%s-%03d.pb.gz", ts.Target, ts.What, k), Data: b, TakenAt: time.Now()}
		if err := m.cfg.Recorder.Capture(ctx, run.ID, c); err != nil {
			failure = err
			break
		}
		if ts.What == "goroutine" && leakServed {
			// The runtime's proof, when the target serves it; a 404 means it does not,
			// and is not asked again.
			b, err := fetchOptional(ctx, m.client, base+"/debug/pprof/goroutineleak")
			if err != nil {
				failure = fmt.Errorf("snapshot %d from %s: %w", k, ts.Target, err)
				break
			}
			leakServed = b != nil
			if b != nil {
				c := Capture{Role: RoleGoroutineLeak, Step: int64(k), Name: fmt.Sprintf("%s-%s-%03d.pb.gz", ts.Target, RoleGoroutineLeak, k), Data: b, TakenAt: time.Now()}
				if err := m.cfg.Recorder.Capture(ctx, run.ID, c); err != nil {
					failure = err
					break
				}
			}
		}
		run.update(func(p *Progress) {
			p.Step, p.Snapshots, p.UpdatedAt = int64(k), k, time.Now()
			p.ElapsedMs = p.UpdatedAt.Sub(p.StartedAt).Milliseconds()
			p.RemainingMs = int64(ts.Count-k) * ts.Interval.Milliseconds()
		})
		if err := m.recordProgress(ctx, run); err != nil && ctx.Err() == nil {
			log.Warn("recording progress", "err", err)
		}
		if k == ts.Count {
			break
		}
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
		if ctx.Err() != nil {
			break
		}
	}
	final := run.update(func(p *Progress) {
		switch cause := context.Cause(ctx); {
		case errors.Is(cause, errCancelled):
			p.Status, p.Error = StatusCancelled, "cancelled by a user"
		case errors.Is(cause, errShutdown):
			p.Status, p.Error = StatusInterrupted, "the server shut down before the capture finished"
		case ctx.Err() != nil:
			p.Status, p.Error = StatusFailed, cause.Error()
		case failure != nil:
			p.Status, p.Error = StatusFailed, failure.Error()
		default:
			p.Status = StatusDone
		}
		p.RemainingMs = 0
	})
	rctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := m.cfg.Recorder.Finish(rctx, run.ID, run.Spec, final); err != nil {
		log.Error("recording the end of a capture", "err", err)
	}
	log.Info("capture ended", "status", final.Status, "snapshots", final.Snapshots)
}
