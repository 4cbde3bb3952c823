package heapdumps

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/leakui/leakui/analyze/hprof"
	"github.com/leakui/leakui/jobs"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/background"
	"github.com/leakui/leakui/web/page"
)

// Jobs are the uploaded heap dumps' analyses as the handlers see them: each
// report's analysis is one job of the job system (web/background), queued
// round robin by uploader, a client having at most MaxQueuedPerClient queued
// or running (429 beyond). The upload answers at once with the report's URL,
// and the report page follows the analysis (Events). The analysis itself is
// Kind.AnalyzeStored.
type Jobs struct {
	k  *Kind
	bg *background.HeapDumps
}

// NewJobs is the analyses of k's dumps, queued in bg.
func NewJobs(k *Kind, bg *background.HeapDumps) *Jobs { return &Jobs{k: k, bg: bg} }

// JobState is where one report's analysis stands, as its page and its events
// say it.
type JobState struct {
	// Status is "analyzing", "failed" or "done" (the report is complete).
	Status string `json:"status"`
	// Queue is how many analyses run or wait before this one (0: it runs).
	Queue int `json:"queue"`
	// Stage and Percent tell the running analysis's progress.
	Stage   string  `json:"stage,omitempty"`
	Percent float64 `json:"percent"`
	// Error is why a failed analysis failed, Code the HTTP status class of it.
	Error string `json:"error,omitempty"`
	Code  int    `json:"error_status,omitempty"`
	// Retry is why the last attempt failed when the analysis waits to be tried
	// again (the server's memory budget held by other analyses, a store error).
	Retry string `json:"retry,omitempty"`
	// Elsewhere tells an analysis this process does not run (another
	// replica's, or one without a job yet, which the next start queues).
	Elsewhere bool `json:"elsewhere,omitempty"`
}

// Retries are how the analyses failing for the server's reasons are tried
// again; tests shorten them.
var Retries = background.DefaultRetries

// jobReadTimeout bounds a read of the job system for a page.
const jobReadTimeout = 10 * time.Second

// Reserve makes room for one more analysis of uploader's, or says with a 429
// that it has its MaxQueuedPerClient queued or running. The room is held until
// done is called, after the report is queued (or not).
func (j *Jobs) Reserve(uploader string) (done func(), err error) {
	ctx, cancel := context.WithTimeout(context.Background(), jobReadTimeout)
	defer cancel()
	return j.bg.Reserve(ctx, uploader)
}

// Enqueue inserts the analysis of uploader's report. When the insert fails,
// the report waits analyzing until a server's next start queues it.
func (j *Jobs) Enqueue(id, uploader string) {
	ctx, cancel := context.WithTimeout(context.Background(), jobReadTimeout)
	defer cancel()
	if err := j.bg.Enqueue(ctx, id, uploader); err != nil {
		j.k.d.Log.Error("queuing a heap dump analysis; the next start queues it", "report", id, "err", err)
	}
}

// state returns where report id's analysis stands (ok false when it has no
// job waiting or running) and a channel closed at the next change in this
// process.
func (j *Jobs) state(id string) (st JobState, ok bool, changed <-chan struct{}) {
	changed = j.bg.Changed()
	ctx, cancel := context.WithTimeout(context.Background(), jobReadTimeout)
	defer cancel()
	bs, ok := j.bg.State(ctx, id)
	st = JobState{Status: store.ReportAnalyzing, Stage: bs.Stage, Percent: 100 * bs.Done, Queue: bs.Queue,
		Retry: bs.Retry, Elsewhere: bs.Elsewhere}
	return st, ok, changed
}

// StageHook, when set (by tests), is called with every progress report of a
// background analysis, with the analysis's context and report.
var StageHook func(ctx context.Context, id, stage string)

// AnalyzeStored reads report id's dump from the store into a directory of its
// own (which also receives the inflated copy of a compressed dump, and goes
// whatever happens), analyzes it, stores its index, and returns the report's
// summary. It runs as a job (web/background), which records the outcome.
func (s *Kind) AnalyzeStored(ctx context.Context, id string, report jobs.Progress) (json.RawMessage, error) {
	progress := func(stage string, done float64) {
		report(stage, done)
		if hook := StageHook; hook != nil {
			hook(ctx, id, stage)
		}
	}
	rep, err := s.d.Store.Report(ctx, id)
	if err != nil {
		return nil, err
	}
	if rep.Status != store.ReportAnalyzing || len(rep.Artifacts) != 1 {
		return nil, fmt.Errorf("%w: report %s is %q with %d files, not a heap dump to analyze", store.ErrInvalid, id, rep.Status, len(rep.Artifacts))
	}
	a := rep.Artifacts[0]
	// One analysis at a time in the process, comparisons included.
	select {
	case Analyses <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-Analyses }()
	dir, err := os.MkdirTemp(s.d.Limits.TempDir, "leakui-heapdump-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := dir + string(os.PathSeparator) + "dump"
	if err := s.spool(ctx, a, path, progress); err != nil {
		return nil, err
	}
	opt := hprof.OpenOptions{TempDir: dir, MaxInflated: max(s.d.Limits.MaxDecompressed, s.d.Limits.MaxHeapDump)}
	opt.Progress, opt.Context = progress, ctx
	finish, err := s.Budget(&opt.Options)
	if err != nil {
		return nil, err
	}
	defer finish()
	h, err := hprof.Open(path, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Name, err)
	}
	defer h.Close()
	hr, err := h.NewReport(ReportOptions, progress)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Name, err)
	}
	indexed, err := s.StoreIndex(ctx, id, h, progress)
	if err != nil {
		return nil, err
	}
	sum := SummaryOf(hr)
	sum.Indexed = indexed
	return json.Marshal(sum)
}

// spool copies an artifact from the store to path, telling the progress.
func (s *Kind) spool(ctx context.Context, a store.ReportArtifact, path string, progress jobs.Progress) error {
	rc, err := s.d.Store.OpenArtifact(ctx, a.SHA256)
	if err != nil {
		return err
	}
	defer rc.Close()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	buf := make([]byte, 1<<20)
	var n int64
	for {
		k, rerr := rc.Read(buf)
		if k > 0 {
			if _, err := f.Write(buf[:k]); err != nil {
				f.Close()
				return err
			}
			n += int64(k)
			if a.Size > 0 {
				progress("load", float64(n)/float64(a.Size))
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			f.Close()
			return rerr
		}
	}
	return f.Close()
}

// FailedSummary is the summary stored with a report whose analysis failed for
// reason.
func FailedSummary(reason string) json.RawMessage {
	return page.MustJSON(Pending{Failed: reason})
}
