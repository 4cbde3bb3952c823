package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/leakui/leakui/jobs"
	"github.com/leakui/leakui/watch"
	"github.com/leakui/leakui/web/page"
	webwatch "github.com/leakui/leakui/web/watch"
)

// opsJSON is /ops.json: what /ops shows, from the same reading, in numbers.
// A part the server does not run (no job system, no watches) is false in
// job_system or watching, its lists empty; a part that could not be read has
// its error beside its list.
type opsJSON struct {
	At           time.Time      `json:"at"`
	Budget       opsBudgetJSON  `json:"budget"`
	JobSystem    bool           `json:"job_system"`
	Queues       []opsQueueJSON `json:"queues"`
	QueuesError  string         `json:"queues_error,omitempty"`
	Running      []opsJobJSON   `json:"running"`
	Failed       []opsJobJSON   `json:"failed"`
	FailedError  string         `json:"failed_error,omitempty"`
	Watching     bool           `json:"watching"`
	Watches      []opsWatchJSON `json:"watches"`
	WatchesError string         `json:"watches_error,omitempty"`
	Throttles    []opsThrottle  `json:"throttles"`
}

type opsBudgetJSON struct {
	UsedBytes  int64   `json:"used_bytes"`
	LimitBytes int64   `json:"limit_bytes"`
	Percent    float64 `json:"percent"`
}

type opsQueueJSON struct {
	Name              string  `json:"name"`
	Workers           int     `json:"workers"`
	Available         int     `json:"available"`
	Running           int     `json:"running"`
	Retryable         int     `json:"retryable"`
	Failed            int     `json:"failed"`
	OldestWaitSeconds float64 `json:"oldest_wait_seconds"`
}

// opsJobJSON is a job running (Started) or failed for good (Ended), with
// the page of what it works on (Link: a report, a watch).
type opsJobJSON struct {
	ID       int64     `json:"id"`
	Kind     string    `json:"kind"`
	Queue    string    `json:"queue"`
	Process  string    `json:"process,omitempty"`
	Attempts int       `json:"attempts"`
	Stage    string    `json:"stage,omitempty"`
	Percent  float64   `json:"percent"`
	Started  time.Time `json:"started,omitzero"`
	Ended    time.Time `json:"ended,omitzero"`
	Error    string    `json:"error,omitempty"`
	Link     string    `json:"link,omitempty"`
}

// opsWatchJSON is a watch's last scrape (or push).
type opsWatchJSON struct {
	Name                string        `json:"name"`
	URL                 string        `json:"url"`
	JSONURL             string        `json:"json_url"`
	Action              string        `json:"action"`
	Verdict             watch.Verdict `json:"verdict"`
	LastScrape          time.Time     `json:"last_scrape,omitzero"`
	LastDurationSeconds float64       `json:"last_duration_seconds"`
	LastError           string        `json:"last_error,omitempty"`
	Stale               bool          `json:"stale"`
	StaleSince          time.Time     `json:"stale_since,omitzero"`
}

type opsThrottle struct {
	Name    string `json:"name"`
	Busy    int    `json:"busy"`
	Limit   int    `json:"limit"`
	Waiting int    `json:"waiting"`
}

// handleOpsJSON is GET /ops.json (and /ops asked for JSON): the operations
// page's twin, read as the page is (token, budget, bounds).
func (s *Server) handleOpsJSON(w http.ResponseWriter, r *http.Request) error {
	o, release, err := s.readOps(r)
	if err != nil {
		return err
	}
	defer release()
	out := opsJSON{At: o.at.UTC(), Budget: opsBudgetJSON{UsedBytes: o.used, LimitBytes: o.limit, Percent: opsPercent(o.used, o.limit)},
		JobSystem: o.jobs, Queues: []opsQueueJSON{}, QueuesError: o.queuesError, Running: []opsJobJSON{}, Failed: []opsJobJSON{},
		FailedError: o.failedError, Watching: o.watches, Watches: []opsWatchJSON{}, WatchesError: o.watchesErr, Throttles: []opsThrottle{}}
	for _, q := range o.queues {
		out.Queues = append(out.Queues, opsQueueJSON(q))
	}
	for _, j := range o.running {
		oj := opsJobJSONOf(r, j)
		oj.Started = j.Started.UTC()
		if j.Started.IsZero() {
			oj.Started = time.Time{}
		}
		out.Running = append(out.Running, oj)
	}
	for _, j := range o.failed {
		oj := opsJobJSONOf(r, j)
		oj.Ended = j.Ended.UTC()
		out.Failed = append(out.Failed, oj)
	}
	for _, st := range o.statuses {
		ow := opsWatchJSON{Name: st.Name, URL: page.Absolute(r, webwatch.URL(st.Name)), JSONURL: page.Absolute(r, webwatch.JSONURL(st.Name)),
			Action: "scrape", Verdict: st.Verdict, LastDurationSeconds: st.LastDuration.Seconds(),
			LastError: page.CleanText(st.LastError, opsErrorRunes), Stale: st.Stale()}
		if st.Pushed() {
			ow.Action = "push"
		}
		if !st.LastScrape.IsZero() {
			ow.LastScrape = st.LastScrape.UTC()
		}
		if ow.Stale {
			ow.StaleSince = st.StaleSince.UTC()
		}
		out.Watches = append(out.Watches, ow)
	}
	for _, t := range o.throttles {
		out.Throttles = append(out.Throttles, opsThrottle(t))
	}
	w.Header().Set("Cache-Control", "no-store")
	return page.JSON(w, http.StatusOK, out)
}

// opsJobJSONOf is a job as /ops.json lists it, its error and link as the
// page shows them.
func opsJobJSONOf(r *http.Request, j jobs.JobInfo) opsJobJSON {
	oj := opsJobJSON{ID: j.ID, Kind: j.Kind, Queue: j.Queue, Process: j.Process, Attempts: j.Attempt, Stage: j.Stage, Percent: j.Percent,
		Error: page.CleanText(strings.TrimPrefix(j.Error, "JobCancelError: "), opsErrorRunes)}
	var args struct {
		Report string `json:"report"`
		Watch  string `json:"watch"`
	}
	if json.Unmarshal(j.Args, &args) == nil {
		switch {
		case args.Report != "":
			oj.Link = page.Absolute(r, "/r/"+url.PathEscape(args.Report))
		case args.Watch != "":
			oj.Link = page.Absolute(r, webwatch.URL(args.Watch))
		}
	}
	return oj
}
