package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/hprof"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
)

// heapDumpJobs analyzes uploaded heap dumps in the background, one at a time,
// the others waiting round robin by uploader (their client address; the
// reports taken up from the store share one turn), each uploader's in the
// order they came, so one client's many dumps wait behind every other
// client's next one; a client may have at most MaxQueuedPerClient queued or
// running (429 beyond). The upload answers at once with the report's URL, and
// the report page follows the analysis (handleReportEvents).
// The Server owns it: its worker starts with the first job and stops in Close.
// Each report analyzing belongs to one server, under a lease it renews every
// third of heapJobLease while it holds the report (queued or running) and gives
// back when it closes; a server takes up, when it starts and at each renewal,
// the reports whose lease has ended (their dumps are stored), never one that
// another live server holds.
type heapDumpJobs struct {
	s *Server

	mu    sync.Mutex
	queue roundRobin[string] // report ids waiting, by uploader
	// owners holds the uploader of each report queued or running;
	// reserved counts the uploads that passed reserve and are not queued yet.
	owners   map[string]string
	reserved map[string]int
	current  string // the report being analyzed, "" for none
	// retries holds the reports whose last attempt failed for a reason of the
	// server's (5xx: a store error, the memory budget held by other analyses):
	// they wait in the queue until their back-off ends.
	retries map[string]heapJobRetry
	// progress is the current analysis's stage and the fraction of it done.
	stage string
	done  float64
	// changed is closed (and replaced) at every change, waking the followers.
	changed chan struct{}
	running bool // the worker goroutine is started
	stopped bool

	stop      chan struct{}
	finished  chan struct{}
	leaseDone chan struct{} // closed when the lease loop has ended
}

// heapJobLease is how long a server holds a report it analyzes without
// renewing its lease; tests shorten it.
var heapJobLease = time.Minute

// errNotOurs is a report another server has taken up: it leaves this queue
// without a word.
var errNotOurs = errors.New("another server analyzes the report")

// heapJobState is where one report's analysis stands, as its page and its
// events say it.
type heapJobState struct {
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
	// Elsewhere tells an analysis this process does not hold (another replica's,
	// or one queued again at its next start).
	Elsewhere bool `json:"elsewhere,omitempty"`
}

// heapJobRetry is a report's failed attempts so far and when it may run again.
type heapJobRetry struct {
	attempts  int
	notBefore time.Time
	reason    string
}

// heapJobAttempts bounds the attempts of one analysis that fails for the
// server's reasons; heapJobBackoff is the wait after the first such failure,
// doubled after each next one up to heapJobMaxBackoff. Tests shorten them.
var (
	heapJobAttempts   = 6
	heapJobBackoff    = 5 * time.Second
	heapJobMaxBackoff = 2 * time.Minute
)

// errJobStopped unwinds an analysis when the server closes; the report stays
// "analyzing" and the next start takes it up again.
var errJobStopped = errors.New("the server is shutting down")

// errAnalysisPanicked is an analysis that panicked (a bug): its report fails
// without another attempt.
var errAnalysisPanicked = errors.New("the analysis panicked")

func newHeapDumpJobs(s *Server) *heapDumpJobs {
	return &heapDumpJobs{s: s, retries: map[string]heapJobRetry{}, owners: map[string]string{}, reserved: map[string]int{},
		changed: make(chan struct{}), stop: make(chan struct{}), finished: make(chan struct{})}
}

// start takes up the reports whose lease has ended, then starts the loop that
// renews this server's leases and takes up those that end later.
func (j *heapDumpJobs) start() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := j.sweep(ctx, time.Now()); err != nil {
		j.s.log.Error("taking up the heap dump analyses left unfinished", "err", err)
	}
	j.leaseDone = make(chan struct{})
	go func() {
		defer close(j.leaseDone)
		t := time.NewTicker(max(heapJobLease/3, 10*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-j.stop:
				return
			case <-t.C:
			}
			ctx, cancel := context.WithTimeout(context.Background(), max(heapJobLease/3, time.Second))
			if err := j.sweep(ctx, time.Now()); err != nil {
				j.s.log.Warn("renewing the leases of this server's heap dump analyses", "err", err)
			}
			cancel()
		}
	}()
}

// sweep renews the leases of the reports this server holds, then claims and
// queues, oldest first, the analyzing reports whose lease ended before now.
func (j *heapDumpJobs) sweep(ctx context.Context, now time.Time) error {
	until := now.Add(heapJobLease)
	if _, err := j.s.store.RenewReportLeases(ctx, j.s.owner, until); err != nil {
		return err
	}
	ids, err := j.s.store.ExpiredAnalyses(ctx, now)
	if err != nil {
		return err
	}
	for _, id := range ids {
		ok, err := j.s.store.ClaimReportAnalysis(ctx, id, j.s.owner, until, now)
		if err != nil {
			return err
		}
		if ok {
			j.enqueue(id, takenUp)
		}
	}
	return nil
}

// takenUp is the uploader of the reports taken up from the store (left by a
// stopped server): who uploaded them is not known here.
const takenUp = ""

// enqueue adds uploader's report to the queue, starting the worker if needed.
func (j *heapDumpJobs) enqueue(id, uploader string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.stopped || id == j.current || j.queue.contains(id) {
		return
	}
	j.queue.push(uploader, id)
	j.owners[id] = uploader
	if !j.running {
		j.running = true
		go j.work()
	}
	j.notifyLocked()
}

// reserve makes room in the queue for one more analysis of uploader's, or
// says with a 429 that it has its MaxQueuedPerClient queued or running. The
// room is held until done is called, after the report is queued (or not).
func (j *heapDumpJobs) reserve(uploader string) (done func(), err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	limit := j.s.cfg.MaxQueuedPerClient
	n := j.queue.count(uploader) + j.reserved[uploader]
	if j.current != "" && j.owners[j.current] == uploader {
		n++
	}
	if n >= limit {
		return nil, serrors.Errorf(http.StatusTooManyRequests, "your address has %d heap dumps queued or being analyzed, the most one client may (-max-queued-per-client): upload more once one is done", limit)
	}
	j.reserved[uploader]++
	return func() {
		j.mu.Lock()
		defer j.mu.Unlock()
		if j.reserved[uploader]--; j.reserved[uploader] <= 0 {
			delete(j.reserved, uploader)
		}
	}, nil
}

// notifyLocked wakes the followers; j.mu is held.
func (j *heapDumpJobs) notifyLocked() {
	close(j.changed)
	j.changed = make(chan struct{})
}

// close stops the worker, cancelling the running analysis's context (it stops
// at its next check, within 65,536 objects), and waits for it.
func (j *heapDumpJobs) close() {
	j.mu.Lock()
	if j.stopped {
		j.mu.Unlock()
		return
	}
	j.stopped = true
	running := j.running
	close(j.stop)
	j.mu.Unlock()
	if running {
		<-j.finished
	}
	if j.leaseDone != nil {
		<-j.leaseDone
	}
	// Give the reports left analyzing to the next server at once.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := j.s.store.ReleaseReportLeases(ctx, j.s.owner); err != nil {
		j.s.log.Warn("giving back the leases of this server's heap dump analyses", "err", err)
	}
}

// state returns where report id's analysis stands in this process (ok false
// when it is neither queued nor running here) and a channel closed at the next
// change.
func (j *heapDumpJobs) state(id string) (st heapJobState, ok bool, changed <-chan struct{}) {
	j.mu.Lock()
	defer j.mu.Unlock()
	st.Status = store.ReportAnalyzing
	switch {
	case id == j.current:
		st.Stage, st.Percent = j.stage, 100*j.done
	default:
		i := j.queue.position(id)
		if i < 0 {
			return st, false, j.changed
		}
		st.Stage, st.Queue = "queued", i+1
		if j.current == "" {
			st.Queue = i
		}
		if r, ok := j.retries[id]; ok {
			st.Stage, st.Retry = "retry", r.reason
		}
	}
	return st, true, j.changed
}

// work analyzes the queued reports one after the other until close; a report
// waiting for its back-off lets the ones behind it pass.
func (j *heapDumpJobs) work() {
	defer close(j.finished)
	for {
		j.mu.Lock()
		id, wait := j.nextLocked(time.Now())
		for id == "" && !j.stopped {
			changed := j.changed
			j.mu.Unlock()
			var timer <-chan time.Time
			var t *time.Timer
			if wait > 0 {
				t = time.NewTimer(wait)
				timer = t.C
			}
			select {
			case <-changed:
			case <-timer:
			case <-j.stop:
			}
			if t != nil {
				t.Stop()
			}
			j.mu.Lock()
			id, wait = j.nextLocked(time.Now())
		}
		if j.stopped {
			j.mu.Unlock()
			return
		}
		j.current, j.stage, j.done = id, "waiting", 0
		j.notifyLocked()
		j.mu.Unlock()

		err := j.run(id)

		j.mu.Lock()
		j.current = ""
		j.notifyLocked()
		j.mu.Unlock()
		if errors.Is(err, errJobStopped) {
			return
		}
	}
}

// nextLocked takes the next queued report whose back-off has ended off the
// queue, round robin by uploader; with none, it returns "" and how long until
// the first back-off ends (0: nothing waits). j.mu is held.
func (j *heapDumpJobs) nextLocked(now time.Time) (id string, wait time.Duration) {
	_, id, ok := j.queue.next(func(_ string, q string) bool {
		r, waiting := j.retries[q]
		return !waiting || !r.notBefore.After(now)
	})
	if ok {
		return id, 0
	}
	for q, r := range j.retries {
		if d := r.notBefore.Sub(now); j.queue.contains(q) && (wait == 0 || d < wait) {
			wait = d
		}
	}
	return "", wait
}

// retryLater puts report id back in the queue after a failed attempt that is
// the server's fault, unless it has had its attempts; it reports whether it did.
func (j *heapDumpJobs) retryLater(id, reason string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	r := j.retries[id]
	r.attempts++
	if r.attempts >= heapJobAttempts || j.stopped {
		delete(j.retries, id)
		return j.stopped
	}
	backoff := heapJobBackoff
	for i := 1; i < r.attempts && backoff < heapJobMaxBackoff; i++ {
		backoff *= 2
	}
	r.notBefore, r.reason = time.Now().Add(min(backoff, heapJobMaxBackoff)), reason
	j.retries[id] = r
	j.queue.push(j.owners[id], id)
	j.notifyLocked()
	return true
}

// forget drops a report's retries and uploader once its analysis has ended.
func (j *heapDumpJobs) forget(id string) {
	j.mu.Lock()
	delete(j.retries, id)
	delete(j.owners, id)
	j.mu.Unlock()
}

// heapJobStageHook, when set (by tests), is called with every progress report
// of a background analysis once it is recorded.
var heapJobStageHook func(stage string)

// progress records the running analysis's stage. (The analysis stops when the
// server closes through its context, which run cancels.)
func (j *heapDumpJobs) progress(stage string, done float64) {
	if heapJobStageHook != nil {
		defer heapJobStageHook(stage) // after the unlock below
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if stage == j.stage && done-j.done < 0.01 && done < 1 {
		return // too small a step to tell the followers
	}
	j.stage, j.done = stage, min(max(done, 0), 1)
	j.notifyLocked()
}

// run analyzes one report's dump and records the outcome.
func (j *heapDumpJobs) run(id string) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-j.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	sum, err := j.analyzeRecovering(ctx, id)
	if errors.Is(err, errJobStopped) {
		return err
	}
	if errors.Is(err, errNotOurs) {
		j.forget(id)
		return nil
	}
	select {
	case <-j.stop:
		return errJobStopped // the report stays analyzing, taken up at the next start
	default:
	}
	// Record the outcome with a context of its own.
	rctx, rcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer rcancel()
	if err != nil {
		code, msg := serrors.StatusOf(err)
		if errors.Is(err, analyze.ErrBusy) {
			msg = "the server's memory budget is in use by other analyses (-memory-budget)"
		}
		reason := failedReason(code, msg)
		if code >= 500 && !errors.Is(err, errAnalysisPanicked) {
			if j.retryLater(id, reason) {
				j.s.log.Warn("heap dump analysis failed; it will be tried again", "report", id, "err", err)
				return err
			}
			reason = failedReason(code, fmt.Sprintf("%s (after %d attempts; upload the dump again later)", msg, heapJobAttempts))
		}
		if code >= 500 {
			j.s.log.Error("heap dump analysis failed", "report", id, "err", err)
		}
		j.forget(id)
		if serr := j.s.store.SetReportState(rctx, id, store.ReportFailed, reason, page.MustJSON(heapDumpPending{Failed: reason})); serr != nil && !errors.Is(serr, store.ErrNotFound) {
			j.s.log.Error("recording a failed heap dump analysis", "report", id, "err", serr)
		}
		return err
	}
	j.forget(id)
	raw, err := json.Marshal(sum)
	if err != nil {
		return err
	}
	if err := j.s.store.SetReportState(rctx, id, store.ReportReady, "", raw); err != nil && !errors.Is(err, store.ErrNotFound) {
		j.s.log.Error("recording a heap dump analysis", "report", id, "err", err)
		return err
	}
	return nil
}

// analyzeRecovering is analyze; a panic (a bug) fails the report rather than
// the process.
func (j *heapDumpJobs) analyzeRecovering(ctx context.Context, id string) (sum *heapDumpSummary, err error) {
	defer func() {
		if p := recover(); p != nil {
			j.s.log.Error("heap dump analysis panicked", "report", id, "panic", p, "stack", string(debug.Stack()))
			sum, err = nil, fmt.Errorf("%w: %v", errAnalysisPanicked, p)
		}
	}()
	return j.analyze(ctx, id)
}

// analyze reads report id's dump from the store into a directory of its own
// (which also receives the inflated copy of a compressed dump, and goes
// whatever happens), analyzes it, stores its index, and returns the summary.
func (j *heapDumpJobs) analyze(ctx context.Context, id string) (*heapDumpSummary, error) {
	rep, err := j.s.store.Report(ctx, id)
	if err != nil {
		return nil, err
	}
	if rep.Status != store.ReportAnalyzing || len(rep.Artifacts) != 1 {
		return nil, fmt.Errorf("%w: report %s is %q with %d files, not a heap dump to analyze", store.ErrInvalid, id, rep.Status, len(rep.Artifacts))
	}
	a := rep.Artifacts[0]
	// One analysis at a time in the process, comparisons included.
	select {
	case heapDumpAnalyses <- struct{}{}:
	case <-j.stop:
		return nil, errJobStopped
	}
	defer func() { <-heapDumpAnalyses }()
	// The report may have been taken up by another server meanwhile (this one's
	// lease ended): check, and renew the lease, now that the analysis begins.
	now := time.Now()
	if ok, err := j.s.store.ClaimReportAnalysis(ctx, id, j.s.owner, now.Add(heapJobLease), now); err != nil {
		return nil, err
	} else if !ok {
		return nil, errNotOurs
	}
	dir, err := os.MkdirTemp(j.s.cfg.TempDir, "leakui-heapdump-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := dir + string(os.PathSeparator) + "dump"
	if err := j.spool(ctx, a, path); err != nil {
		return nil, err
	}
	opt := hprof.OpenOptions{TempDir: dir, MaxInflated: max(j.s.cfg.MaxDecompressed, j.s.cfg.MaxHeapDump)}
	opt.Progress, opt.Context = j.progress, ctx
	finish, err := j.s.heapDumpBudget(&opt.Options)
	if err != nil {
		return nil, err
	}
	defer finish()
	h, err := hprof.Open(path, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Name, err)
	}
	defer h.Close()
	hr, err := h.NewReport(heapDumpReportOptions, j.progress)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Name, err)
	}
	indexed, err := j.s.storeHeapDumpIndex(ctx, id, h, j.progress)
	if err != nil {
		return nil, err
	}
	sum := heapDumpSummaryOf(hr)
	sum.Indexed = indexed
	return sum, nil
}

// spool copies an artifact from the store to path, telling the progress.
func (j *heapDumpJobs) spool(ctx context.Context, a store.ReportArtifact, path string) error {
	rc, err := j.s.store.OpenArtifact(ctx, a.SHA256)
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
				j.progress("load", float64(n)/float64(a.Size))
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

// failedReason is how a failed analysis is stored: the HTTP status its error
// maps to, then the message safe to show.
func failedReason(code int, msg string) string {
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return strconv.Itoa(code) + " " + msg
}

// parseFailedReason splits a stored reason into its status and message; a
// reason without a status is a 500.
func parseFailedReason(reason string) (int, string) {
	code, msg, ok := strings.Cut(reason, " ")
	if n, err := strconv.Atoi(code); ok && err == nil && n >= 400 && n < 600 {
		return n, msg
	}
	return http.StatusInternalServerError, reason
}
