package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
)

// runRecorder records the lab's runs in the store: progress with a lease,
// captures as artifacts, and at the end a report over everything the run produced.
type runRecorder struct{ s *Server }

// Progress implements lab.Recorder.
func (rr runRecorder) Progress(ctx context.Context, runID string, p lab.Progress, leaseUntil time.Time) error {
	return rr.s.store.UpdateRunProgress(ctx, runID, page.MustJSON(p), leaseUntil)
}

// Capture implements lab.Recorder: the bytes become an artifact of the run.
// A capture in a profile's role (heap, goroutine, goroutineleak) must be a
// profile leakui reads, of the type of the run's first capture in that role;
// anything else is refused before it is stored, with an error the run ends
// with (see checkCapture).
func (rr runRecorder) Capture(ctx context.Context, runID string, c lab.Capture) error {
	sum := sha256.Sum256(c.Data)
	if err := rr.checkCapture(ctx, runID, c, hex.EncodeToString(sum[:])); err != nil {
		return err
	}
	det := detectBytes(c.Data)
	u := store.Upload{
		Name: rr.captureName(ctx, runID, c), SHA256: hex.EncodeToString(sum[:]), Size: int64(len(c.Data)), Kind: string(det.Kind), Format: det.Format,
		Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(c.Data)), nil },
	}
	return rr.s.store.AddRunArtifact(ctx, runID, &store.RunArtifact{Role: c.Role, Step: c.Step, TakenAt: c.TakenAt}, u)
}

// Finish implements lab.Recorder: it makes the run's report and records the
// end. A report that cannot be made does not keep the run running: the run
// ends failed, with the reason, and without a report.
func (rr runRecorder) Finish(ctx context.Context, runID string, spec lab.Spec, p lab.Progress) error {
	s := rr.s
	run := &store.Run{ID: runID, Status: p.Status, Verdict: p.Verdict, Reason: p.Reason, Error: p.Error, Progress: page.MustJSON(p)}
	if err := rr.report(ctx, run, spec, p); err != nil {
		if errors.Is(err, store.ErrFull) || ctx.Err() != nil {
			return err
		}
		s.log.Warn("a run's report could not be made", "run", runID, "err", err)
		_, msg := serrors.StatusOf(err)
		run.Status, run.Verdict, run.ReportID = lab.StatusFailed, "", ""
		run.Error = "its report could not be made: " + msg
		p.Status, p.Verdict, p.Error = run.Status, "", run.Error
		run.Progress = page.MustJSON(p)
	}
	return s.store.FinishRun(ctx, run)
}

// report makes the report of a run's artifacts and sets run.ReportID (left
// empty when the run produced nothing to report on).
func (rr runRecorder) report(ctx context.Context, run *store.Run, spec lab.Spec, p lab.Progress) error {
	s, runID := rr.s, run.ID
	arts, err := s.store.RunArtifacts(ctx, runID)
	if err != nil {
		return err
	}
	if spec.Workload == lab.WorkloadCapture {
		id, err := rr.s.profileKind.CaptureReport(ctx, runID, spec, arts)
		if err != nil {
			return err
		}
		run.ReportID = id
	} else if len(arts) > 0 {
		refs := make([]store.Upload, len(arts))
		for i, a := range arts {
			refs[i] = store.Upload{Name: a.Name, SHA256: a.SHA256, Label: a.Role}
		}
		// What a jvm run captured of its JVM becomes a report of its own (run_jvm.go).
		jvmRefs, err := rr.jvmReports(ctx, runID, arts)
		if err != nil {
			return err
		}
		rep := &store.Report{
			Kind: kindRun, RunID: runID,
			Params:  page.MustJSON(map[string]any{"run_id": runID, "spec": spec}),
			Summary: page.MustJSON(runSummary{Title: spec.Title(), Status: p.Status, Verdict: p.Verdict, Reason: p.Reason, Counters: p.Counters, JVM: jvmRefs}),
		}
		if err := s.store.CreateReport(ctx, rep, refs); err != nil {
			return err
		}
		run.ReportID = rep.ID
	}
	return nil
}

// runSummary is stored with a run's report.
type runSummary struct {
	Title    string           `json:"title"`
	Status   string           `json:"status"`
	Verdict  string           `json:"verdict"`
	Reason   string           `json:"reason"`
	Counters map[string]int64 `json:"counters"`
	// JVM names the reports made of what a jvm run captured of its JVM.
	JVM []runJVMRef `json:"jvm,omitempty"`
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
