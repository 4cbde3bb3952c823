package runs

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
)

// Recorder records the lab's runs in the store: progress with a lease,
// captures as artifacts, and at the end a report over everything the run
// produced. It implements lab.Recorder.
type Recorder struct{ k *Kind }

// Recorder is what the lab records its runs with.
func (s *Kind) Recorder() Recorder { return Recorder{s} }

// Progress implements lab.Recorder.
func (rr Recorder) Progress(ctx context.Context, runID string, p lab.Progress, leaseUntil time.Time) error {
	return rr.k.d.Store.UpdateRunProgress(ctx, runID, page.MustJSON(p), leaseUntil)
}

// Capture implements lab.Recorder: the bytes become an artifact of the run.
// A capture in a profile's role (heap, goroutine, goroutineleak) must be a
// profile leakui reads, of the type of the run's first capture in that role;
// anything else is refused before it is stored, with an error the run ends
// with (see checkCapture).
func (rr Recorder) Capture(ctx context.Context, runID string, c lab.Capture) error {
	sum := sha256.Sum256(c.Data)
	if err := rr.checkCapture(ctx, runID, c, hex.EncodeToString(sum[:])); err != nil {
		return err
	}
	det := detectBytes(c.Data)
	u := store.Upload{
		Name: rr.captureName(ctx, runID, c), SHA256: hex.EncodeToString(sum[:]), Size: int64(len(c.Data)), Kind: string(det.Kind), Format: det.Format,
		Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(c.Data)), nil },
	}
	return rr.k.d.Store.AddRunArtifact(ctx, runID, &store.RunArtifact{Role: c.Role, Step: c.Step, TakenAt: c.TakenAt}, u)
}

// Finish implements lab.Recorder: it makes the run's report and records the
// end. A report that cannot be made does not keep the run running: the run
// ends failed, with the reason, and without a report.
func (rr Recorder) Finish(ctx context.Context, runID string, spec lab.Spec, p lab.Progress) error {
	run := &store.Run{ID: runID, Status: p.Status, Verdict: p.Verdict, Reason: p.Reason, Error: p.Error, Progress: page.MustJSON(p)}
	if err := rr.report(ctx, run, spec, p); err != nil {
		if errors.Is(err, store.ErrFull) || ctx.Err() != nil {
			return err
		}
		rr.k.d.Log.Warn("a run's report could not be made", "run", runID, "err", err)
		_, msg := serrors.StatusOf(err)
		run.Status, run.Verdict, run.ReportID = lab.StatusFailed, "", ""
		run.Error = "its report could not be made: " + msg
		p.Status, p.Verdict, p.Error = run.Status, "", run.Error
		run.Progress = page.MustJSON(p)
	}
	return rr.k.d.Store.FinishRun(ctx, run)
}

// report makes the report of a run's artifacts and sets run.ReportID (left
// empty when the run produced nothing to report on).
func (rr Recorder) report(ctx context.Context, run *store.Run, spec lab.Spec, p lab.Progress) error {
	runID := run.ID
	arts, err := rr.k.d.Store.RunArtifacts(ctx, runID)
	if err != nil {
		return err
	}
	if spec.Workload == lab.WorkloadCapture {
		id, err := rr.k.Profiles.CaptureReport(ctx, runID, spec, arts)
		if err != nil {
			return err
		}
		run.ReportID = id
	} else if len(arts) > 0 {
		refs := make([]store.Upload, len(arts))
		for i, a := range arts {
			refs[i] = store.Upload{Name: a.Name, SHA256: a.SHA256, Label: a.Role}
		}
		// What a jvm run captured of its JVM becomes a report of its own (JVMReports).
		jvmRefs, err := rr.k.JVMReports(ctx, runID, arts)
		if err != nil {
			return err
		}
		rep := &store.Report{
			Kind: ReportKind, RunID: runID,
			Params:  page.MustJSON(map[string]any{"run_id": runID, "spec": spec}),
			Summary: page.MustJSON(Summary{Title: spec.Title(), Status: p.Status, Verdict: p.Verdict, Reason: p.Reason, Counters: p.Counters, JVM: jvmRefs}),
		}
		if err := rr.k.d.Store.CreateReport(ctx, rep, refs); err != nil {
			return err
		}
		run.ReportID = rep.ID
	}
	return nil
}

// Summary is stored with a run's report.
type Summary struct {
	Title    string           `json:"title"`
	Status   string           `json:"status"`
	Verdict  string           `json:"verdict"`
	Reason   string           `json:"reason"`
	Counters map[string]int64 `json:"counters"`
	// JVM names the reports made of what a jvm run captured of its JVM.
	JVM []JVMRef `json:"jvm,omitempty"`
}

// detectBytes tells the kind of captured bytes.
func detectBytes(b []byte) analyze.Detection {
	rc, _, err := analyze.Decompress(bytes.NewReader(b), 0)
	if err != nil {
		return analyze.Detection{Kind: analyze.KindUnknown}
	}
	defer rc.Close()
	head := make([]byte, analyze.SniffSize)
	n, _ := io.ReadFull(rc, head)
	return analyze.DetectKind(head[:n])
}

// profileRoles are the roles of a run's captures that must be profiles.
var profileRoles = map[string]bool{"heap": true, "goroutine": true, lab.RoleGoroutineLeak: true}

// checkCapture checks a capture's content before it is stored: in a profile's
// role it must load as a profile (not an HTML error page, a redirect's body or
// a truncated file), and be of the type of the run's first capture in the same
// role, so that the run's report can compare them. The error wraps
// analyze.ErrUnsupportedKind, ErrMalformed or ErrMismatch.
func (rr Recorder) checkCapture(ctx context.Context, runID string, c lab.Capture, sha string) error {
	if !profileRoles[c.Role] {
		return nil
	}
	if det := detectBytes(c.Data); det.Kind != analyze.KindProfile {
		return fmt.Errorf("%w: the %s capture %s is %s, not a pprof profile", analyze.ErrUnsupportedKind, c.Role, c.Name, det.Kind.Description())
	}
	p, err := pprof.Open(pprof.Reader(bytes.NewReader(c.Data)), pprof.Options{Limit: rr.k.d.Limits.MaxDecompressed})
	if err != nil {
		return fmt.Errorf("the %s capture %s: %w", c.Role, c.Name, err)
	}
	rr.k.ProfileCache.Add(sha, p)
	arts, err := rr.k.d.Store.RunArtifacts(ctx, runID)
	if err != nil {
		return err
	}
	for _, a := range arts {
		if a.Role != c.Role || a.SHA256 == sha {
			continue
		}
		first, err := rr.k.Profiles.Load(ctx, a.SHA256)
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

// captureName names a lab capture by its run, kind and step, such as
// "checkpoint-leaky-ab3d9f-heap-step004.pb.gz" (a jvm run's jcmd outputs
// keep their own name after the role: "recovery-jvm-ab3d9f-jvm-capture-before-step002.tar.gz"), so that a download or a listing
// of captures from several runs says where each came from. A run the store
// cannot read keeps the lab's own name.
func (rr Recorder) captureName(ctx context.Context, runID string, c lab.Capture) string {
	run, err := rr.k.d.Store.Run(ctx, runID)
	if err != nil {
		return c.Name
	}
	var spec lab.Spec
	page.Unmarshal(run.Spec, &spec)
	ext := ".pb.gz"
	switch e := path.Ext(c.Name); {
	case strings.HasSuffix(c.Name, ".tar.gz"):
		ext = ".tar.gz" // a jvm run's capture bundle
	case e != ".gz" && e != "":
		ext = e
	}
	// The kind is the capture's role ("heap-00004.pb.gz" is a heap), unless the
	// lab named the capture itself ("jvm-nmt-before.txt"): then its own name
	// says more, and several captures of one role and step stay apart.
	kind := c.Role
	if stem := strings.TrimSuffix(strings.TrimSuffix(c.Name, ".pb.gz"), ext); !genericCaptureName(stem, c.Role) {
		kind = stem
	}
	parts := []string{}
	for _, p := range []string{spec.Workload, spec.Variant, runID[:min(6, len(runID))], kind} {
		if p = nameSafe(p); p != "" {
			parts = append(parts, p)
		}
	}
	return fmt.Sprintf("%s-step%03d%s", strings.Join(parts, "-"), c.Step, ext)
}

// nameSafe keeps the letters, digits, dots and dashes of s, for a file name.
func nameSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
			return r
		}
		if r == '_' || r == ' ' || r == '/' || r == ':' {
			return '-'
		}
		return -1
	}, s)
}

// genericCaptureName reports whether stem says no more than the capture's role
// and step: the lab's numbered names ("heap-00004"), a target's
// ("api-heap-003") and a run's log ("checkpoint"). Only a name that starts
// with the role and goes on with words ("jvm-nmt-before") says more.
func genericCaptureName(stem, role string) bool {
	rest, ok := strings.CutPrefix(stem, role+"-")
	if !ok {
		return true
	}
	for _, r := range rest {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
