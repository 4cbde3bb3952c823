package background

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/jobs"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/serrors"
)

// Queue is the job queue of the heap dump analyses. Work it with one worker
// (the runner's Config.Queues): an analysis holds much of the memory budget.
const Queue = "heap_dumps"

// analysisArgs are a heap dump analysis's job: the report to complete.
type analysisArgs struct {
	Report string `json:"report"`
}

// Kind names the job kind.
func (analysisArgs) Kind() string { return analysisKind }

const analysisKind = "heap_dump_analysis"

// Retries say how an analysis that fails for the server's reasons (5xx: a
// store error, the memory budget held by other analyses) is tried again: at
// most Attempts times, First after the first failure, doubling up to Max.
type Retries struct {
	Attempts   int
	First, Max time.Duration
}

// DefaultRetries are six attempts, 5 s after the first failure, doubling up
// to 2 minutes.
var DefaultRetries = Retries{Attempts: 6, First: 5 * time.Second, Max: 2 * time.Minute}

func (r Retries) backoff(attempt int) time.Duration {
	d := r.First
	for i := 1; i < attempt && d < r.Max; i++ {
		d *= 2
	}
	return min(d, r.Max)
}

// HeapDumps runs the analyses of the heap dumps uploaded to the server, one
// job per report: one dump's analysis, or a comparison's (its dumps analyzed
// in turn, then compared; Config.Analyze tells them apart).
type HeapDumps struct {
	cfg     *Config
	retries Retries

	mu sync.Mutex
	// reserved counts, by uploader, the uploads that passed Reserve and whose
	// job is not inserted yet.
	reserved map[string]int
}

// ErrNoJobs is a heap dump uploaded to a server without a job runner.
var ErrNoJobs = serrors.Errorf(http.StatusServiceUnavailable, "this server runs no background jobs: heap dumps cannot be analyzed")

// ErrPanicked is an analysis that panicked (a bug): its report fails at once.
var ErrPanicked = errors.New("the analysis panicked")

// newHeapDumps registers the heap dump analyses on the job runner.
func newHeapDumps(cfg *Config) *HeapDumps {
	h := &HeapDumps{cfg: cfg, retries: cfg.Retries, reserved: map[string]int{}}
	if cfg.Jobs != nil {
		jobs.Register(cfg.Jobs, jobs.WorkFunc[analysisArgs](h.work),
			jobs.Kind{Queue: Queue, MaxAttempts: h.retries.Attempts, Backoff: h.retries.backoff})
	}
	return h
}

// Reserve makes room for one more analysis of uploader's, or says with a 429
// that it has its MaxQueuedPerClient queued or running across the replicas.
// The room is held until done is called, once the report's job is inserted
// (Enqueue) or the upload failed.
func (h *HeapDumps) Reserve(ctx context.Context, uploader string) (done func(), err error) {
	if h.cfg.Jobs == nil {
		return nil, ErrNoJobs
	}
	h.mu.Lock()
	reserved := h.reserved[uploader]
	h.reserved[uploader]++
	h.mu.Unlock()
	release := func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.reserved[uploader]--; h.reserved[uploader] <= 0 {
			delete(h.reserved, uploader)
		}
	}
	n, err := h.cfg.Jobs.ClientJobs(ctx, analysisKind, uploader)
	if err != nil {
		release()
		return nil, err
	}
	if limit := h.cfg.MaxQueuedPerClient; n+reserved >= limit {
		release()
		return nil, serrors.Errorf(http.StatusTooManyRequests, "your address has %d heap dumps queued or being analyzed, the most one client may (-max-queued-per-client): upload more once one is done", limit)
	}
	return release, nil
}

// Enqueue inserts report id's analysis for uploader: its turn comes round
// robin by uploader. A report whose job exists already keeps it.
func (h *HeapDumps) Enqueue(ctx context.Context, id, uploader string) error {
	if h.cfg.Jobs == nil {
		return ErrNoJobs
	}
	_, err := h.cfg.Jobs.Insert(ctx, analysisArgs{Report: id}, jobs.InsertOptions{Client: uploader, Unique: jobs.Unique{ByArgs: true}})
	return err
}

// Changed returns a channel closed at the next change of an analysis in this
// process (queued, begun, progressing, ended); changes in other replicas are
// read from the store by polling.
func (h *HeapDumps) Changed() <-chan struct{} {
	if h.cfg.Jobs == nil {
		return nil
	}
	return h.cfg.Jobs.Changed()
}

// State is where a report's analysis stands.
type State struct {
	// Stage is "queued", "retry" (waiting to be tried again) or the running
	// analysis's stage; Done is the fraction of the stage done.
	Stage string
	Done  float64
	// Queue is how many analyses run or wait before this one (0: it runs).
	Queue int
	// Retry is why the last attempt failed, when it waits to be tried again
	// (FailedReason's form).
	Retry string
	// Elsewhere tells an analysis another replica runs.
	Elsewhere bool
}

// State returns where report id's analysis stands; ok is false when it has
// no job waiting or running (it is about to be recorded as done or failed,
// or a server older than the job system left it, and the next start queues
// it).
func (h *HeapDumps) State(ctx context.Context, id string) (st State, ok bool) {
	if h.cfg.Jobs == nil {
		return st, false
	}
	info, err := h.cfg.Jobs.Find(ctx, analysisKind, "report", id)
	if err != nil {
		if !errors.Is(err, jobs.ErrNotFound) && !errors.Is(err, jobs.ErrStopped) && ctx.Err() == nil {
			h.cfg.Log.Warn("reading a heap dump analysis's job", "report", id, "err", err)
		}
		return st, false
	}
	switch info.State {
	case jobs.Running:
		st.Stage, st.Done, st.Elsewhere = info.Stage, info.Percent/100, !info.Here
		if st.Stage == "starting" {
			st.Stage = "waiting"
		}
	case jobs.Queued, jobs.Retrying:
		st.Stage, st.Queue = "queued", info.Position
		// A job stopped with its server waits again without a reason of ours.
		if _, _, ok := parseReason(info.Error); ok && info.State == jobs.Retrying {
			st.Stage, st.Retry = "retry", info.Error
		}
	default:
		return st, false
	}
	return st, true
}

// resume makes sure every report analyzing has a job: a report a server
// older than the job system left gets one, and a report whose job ended
// without recording an outcome (out of attempts after its processes died)
// fails with its job's last error.
func (h *HeapDumps) resume(ctx context.Context) error {
	ids, err := h.cfg.Store.AnalyzingReports(ctx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		info, err := h.cfg.Jobs.Find(ctx, analysisKind, "report", id)
		switch {
		case errors.Is(err, jobs.ErrNotFound):
			if err := h.Enqueue(ctx, id, ""); err != nil {
				return err
			}
		case err != nil:
			return err
		case info.State == jobs.Failed || info.State == jobs.Cancelled:
			reason := info.Error
			if _, _, ok := parseReason(reason); !ok {
				reason = FailedReason(http.StatusInternalServerError, fmt.Sprintf("the analysis ended after %d attempts without an outcome (%s): upload the dump again", info.Attempt, reason))
			}
			h.recordFailed(ctx, id, reason)
		}
	}
	return nil
}

// failure is an attempt's error as its job records it: the stored reason.
type failure struct {
	reason string
	err    error
}

func (f *failure) Error() string { return f.reason }
func (f *failure) Unwrap() error { return f.err }

// work runs one attempt of report a.Report's analysis and records its
// outcome: the summary when done, the reason when it failed for good. A
// failure of the server's is tried again (the job's error is the reason the
// page shows meanwhile), up to the attempts; an analysis stopped with the
// server records nothing and runs again at the next start or elsewhere.
func (h *HeapDumps) work(ctx context.Context, a analysisArgs, progress jobs.Progress) error {
	rep, err := h.cfg.Store.Report(ctx, a.Report)
	if errors.Is(err, store.ErrNotFound) {
		return jobs.Fail(err) // deleted meanwhile
	}
	if err != nil {
		return &failure{FailedReason(http.StatusInternalServerError, "the store: "+err.Error()), err}
	}
	if rep.Status != store.ReportAnalyzing {
		return nil // its outcome is recorded already
	}
	sum, err := h.analyzeRecovering(ctx, a.Report, progress)
	if ctx.Err() != nil {
		return ctx.Err() // stopped: it goes back to the queue
	}
	// The outcome is recorded with a context of its own.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err == nil {
		if err := h.cfg.Store.SetReportState(rctx, a.Report, store.ReportReady, "", sum); err != nil && !errors.Is(err, store.ErrNotFound) {
			h.cfg.Log.Error("recording a heap dump analysis", "report", a.Report, "err", err)
			return &failure{FailedReason(http.StatusInternalServerError, "recording the analysis: "+err.Error()), err}
		}
		return nil
	}
	code, msg := serrors.StatusOf(err)
	if errors.Is(err, analyze.ErrBusy) {
		msg = "the server's memory budget is in use by other analyses (-memory-budget)"
	}
	reason := FailedReason(code, msg)
	if code >= 500 && !errors.Is(err, ErrPanicked) {
		if at, _ := jobs.CurrentAttempt(ctx); at.Number < h.retries.Attempts {
			h.cfg.Log.Warn("heap dump analysis failed; it will be tried again", "report", a.Report, "err", err)
			return &failure{reason, err}
		}
		reason = FailedReason(code, fmt.Sprintf("%s (after %d attempts; upload the dump again later)", msg, h.retries.Attempts))
	}
	if code >= 500 {
		h.cfg.Log.Error("heap dump analysis failed", "report", a.Report, "err", err)
	}
	h.recordFailed(rctx, a.Report, reason)
	return jobs.Fail(&failure{reason, err})
}

// recordFailed records report id's analysis as failed for reason.
func (h *HeapDumps) recordFailed(ctx context.Context, id, reason string) {
	var summary []byte
	if h.cfg.Failed != nil {
		summary = h.cfg.Failed(reason)
	}
	if err := h.cfg.Store.SetReportState(ctx, id, store.ReportFailed, reason, summary); err != nil && !errors.Is(err, store.ErrNotFound) {
		h.cfg.Log.Error("recording a failed heap dump analysis", "report", id, "err", err)
	}
}

// analyzeRecovering is Config.Analyze; a panic (a bug) fails the report
// rather than the process.
func (h *HeapDumps) analyzeRecovering(ctx context.Context, id string, progress jobs.Progress) (sum []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			h.cfg.Log.Error("heap dump analysis panicked", "report", id, "panic", p, "stack", string(debug.Stack()))
			sum, err = nil, fmt.Errorf("%w: %v", ErrPanicked, p)
		}
	}()
	return h.cfg.Analyze(ctx, id, progress)
}

// FailedReason is how a failed analysis is stored: the HTTP status its error
// maps to, then the message safe to show, on one line.
func FailedReason(code int, msg string) string {
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return strconv.Itoa(code) + " " + msg
}

// ParseFailedReason splits a stored reason into its status and message; a
// reason without a status is a 500.
func ParseFailedReason(reason string) (int, string) {
	if code, msg, ok := parseReason(reason); ok {
		return code, msg
	}
	return http.StatusInternalServerError, reason
}

func parseReason(reason string) (int, string, bool) {
	code, msg, ok := strings.Cut(reason, " ")
	if n, err := strconv.Atoi(code); ok && err == nil && n >= 400 && n < 600 {
		return n, msg, true
	}
	return 0, "", false
}
