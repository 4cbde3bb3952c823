package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/jobs"
	"github.com/leakui/leakui/watch"
	"github.com/leakui/leakui/web/background"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/view"
	webwatch "github.com/leakui/leakui/web/watch"
)

// OpsURL is the operations page.
const OpsURL = "/ops"

// The operations page's bounds: the failed jobs it lists, and what it
// charges the memory budget while it is built (its lists are bounded: at most
// jobs.MaxRunningShown running jobs, opsFailedShown failed ones with errors of
// at most opsErrorRunes, and the declared watches).
const (
	opsFailedShown = 20
	opsErrorRunes  = 1000
	opsPageCost    = 512 << 10
	opsReadTimeout = 5 * time.Second
)

// OpsJSONURL is the operations page's JSON twin.
const OpsJSONURL = "/ops.json"

// opsReading is what /ops and /ops.json show, read once: the memory budget's
// use, the job queues, the jobs running and failed, the watches and the
// throttles; a part that could not be read has its error instead.
type opsReading struct {
	at                                   time.Time
	used, limit                          int64
	jobs, watches                        bool
	queues                               []background.QueueState
	running, failed                      []jobs.JobInfo
	statuses                             []watch.Status
	queuesError, failedError, watchesErr string
	throttles                            []view.OpsThrottle
}

// readOps reads what /ops and /ops.json show. It is read like the API: with
// a token on a server that has one, private or not; it charges the memory
// budget opsPageCost, given back by release.
func (s *Server) readOps(r *http.Request) (o opsReading, release func(), err error) {
	if !s.authorized(r) {
		return o, nil, s.unauthorized(r)
	}
	o.at, o.used, o.limit = time.Now(), s.budget.Used(), s.budget.Limit()
	b := s.budget.Child(0)
	if err := b.Charge(opsPageCost); err != nil {
		b.Release()
		return o, nil, err
	}
	ctx, cancel := context.WithTimeout(r.Context(), opsReadTimeout)
	defer cancel()
	o.jobs, o.watches = s.cfg.Jobs != nil, s.cfg.Watches != nil
	if o.jobs {
		qs, err := s.background.Queues(ctx)
		if err != nil {
			s.log.Warn("ops: the job queues do not answer", "err", err)
			o.queuesError = "The job queues could not be read: " + page.CleanText(err.Error(), opsErrorRunes)
		}
		o.queues = qs
		if err == nil {
			if snap, err := s.cfg.Jobs.Snapshot(ctx); err == nil {
				o.running = snap.Running
			}
		}
		failed, err := s.background.FailedJobs(ctx, opsFailedShown)
		if err != nil {
			s.log.Warn("ops: the failed jobs do not answer", "err", err)
			o.failedError = "The failed jobs could not be read: " + page.CleanText(err.Error(), opsErrorRunes)
		}
		o.failed = failed
	}
	if o.watches {
		sts, err := s.cfg.Watches.Statuses(ctx)
		if err != nil {
			s.log.Warn("ops: the watches do not answer", "err", err)
			o.watchesErr = "The watches could not be read: " + page.CleanText(err.Error(), opsErrorRunes)
		}
		o.statuses = sts
	}
	for _, c := range s.throttles.all() {
		busy, waiting := c.load()
		o.throttles = append(o.throttles, view.OpsThrottle{Name: c.name, Busy: busy, Limit: c.slots, Waiting: waiting})
	}
	return o, b.Release, nil
}

// handleOps is GET /ops: the job system's queues (from the same reading as
// /readyz's), the jobs running and those that failed for good with their
// errors, the watches' last scrapes, the memory budget's use and the
// throttles. It is read like the API: with a token on a server that has one,
// private or not. A part that cannot be read says so; the others show.
func (s *Server) handleOps(w http.ResponseWriter, r *http.Request) error {
	if page.WantsJSON(r) {
		return s.handleOpsJSON(w, r)
	}
	o, release, err := s.readOps(r)
	if err != nil {
		return err
	}
	defer release()
	v := view.OpsView{At: page.FormatTime(o.at), BudgetUsed: analyze.FormatBytes(o.used), BudgetLimit: analyze.FormatBytes(o.limit),
		BudgetBytes: o.used, BudgetOfBytes: o.limit, BudgetPercent: "0%", Jobs: o.jobs, Watches: o.watches,
		QueuesError: o.queuesError, FailedError: o.failedError, WatchesError: o.watchesErr, Throttles: o.throttles}
	if o.limit > 0 {
		v.BudgetPercent = fmt.Sprintf("%.1f%%", opsPercent(o.used, o.limit))
	}
	for _, q := range o.queues {
		v.Queues = append(v.Queues, view.OpsQueue{Name: q.Name, Workers: q.Workers, Available: q.Available, Running: q.Running,
			Retryable: q.Retryable, Failed: q.Failed, OldestWait: opsWait(q.OldestWaitSeconds)})
	}
	for _, j := range o.running {
		oj := opsJob(j)
		oj.When = page.FormatTime(j.Started)
		if j.Started.IsZero() {
			oj.When = "its start"
		}
		v.Running = append(v.Running, oj)
	}
	for _, j := range o.failed {
		oj := opsJob(j)
		oj.When = page.FormatTime(j.Ended)
		v.Failed = append(v.Failed, oj)
	}
	for _, st := range o.statuses {
		v.WatchList = append(v.WatchList, opsWatch(st))
	}
	w.Header().Set("Cache-Control", "no-store")
	return s.render(w, r, http.StatusOK, view.Page{Title: "operations", Styles: []string{s.assets.url("ops.css")}}, view.OpsPage(v))
}

// opsPercent is used of limit in percent.
func opsPercent(used, limit int64) float64 {
	if limit <= 0 {
		return 0
	}
	return 100 * float64(used) / float64(limit)
}

// opsWait is a queue's oldest wait in words, "" for none.
func opsWait(seconds float64) string {
	if seconds <= 0 {
		return "—"
	}
	return (time.Duration(seconds * float64(time.Second))).Round(time.Second).String()
}

// opsJob is a job as the page lists it, with a link to what it works on:
// a heap dump analysis's report, a watch's tick's watch.
func opsJob(j jobs.JobInfo) view.OpsJob {
	oj := view.OpsJob{ID: fmt.Sprint(j.ID), Kind: j.Kind, Queue: j.Queue, Process: j.Process,
		Attempts: page.OneOrMany(j.Attempt, "1 attempt", fmt.Sprintf("%d attempts", j.Attempt)),
		Error:    page.CleanText(strings.TrimPrefix(j.Error, "JobCancelError: "), opsErrorRunes)}
	if j.Stage != "" {
		oj.Progress = fmt.Sprintf("%s %.0f%%", j.Stage, j.Percent)
	}
	var args struct {
		Report string `json:"report"`
		Watch  string `json:"watch"`
	}
	if json.Unmarshal(j.Args, &args) == nil {
		switch {
		case args.Report != "":
			oj.Link, oj.LinkLabel = "/r/"+url.PathEscape(args.Report), "report "+page.CleanText(args.Report, 64)
		case args.Watch != "":
			oj.Link, oj.LinkLabel = webwatch.URL(args.Watch), "watch "+page.CleanText(args.Watch, 200)
		}
	}
	return oj
}

// opsWatch is a watch's last scrape (or push) as the page lists it.
func opsWatch(st watch.Status) view.OpsWatch {
	w := view.OpsWatch{Name: st.Name, URL: webwatch.URL(st.Name), Action: "scrape", Error: page.CleanText(st.LastError, opsErrorRunes)}
	if st.Pushed() {
		w.Action = "push"
	}
	switch st.Verdict {
	case watch.Leak:
		w.Verdict, w.VerdictClass = "leak suspected", "bad"
	case watch.Inconclusive:
		w.Verdict = "inconclusive"
	case watch.NoLeak:
		w.Verdict, w.VerdictClass = "no leak", "good"
	default:
		w.Verdict = "no verdict yet"
	}
	if !st.LastScrape.IsZero() {
		w.Last, w.Took = page.FormatTime(st.LastScrape), st.LastDuration.Round(time.Millisecond).String()
	}
	if st.Stale() {
		w.Stale = "stale since " + page.FormatTime(st.StaleSince)
	}
	return w
}
