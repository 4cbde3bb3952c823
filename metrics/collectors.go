package metrics

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/leakui/leakui/jobs"
	"github.com/leakui/leakui/watch"
)

// The watches' metrics, read from their state at each scrape: every replica
// serves the same values, whichever ran the tick.
var (
	watchVerdict = prometheus.NewDesc("leakui_watch_verdict",
		"1 for the verdict a watch holds over its window (no leak, inconclusive, leak), 0 for the others; all 0 before its first verdict.",
		[]string{"watch", "verdict"}, nil)
	watchGrowth = prometheus.NewDesc("leakui_watch_growth_per_hour",
		"The watch's suspect's growth per hour, in unit (bytes for the heap, count for goroutines); 0 without a suspect.",
		[]string{"watch", "unit"}, nil)
	watchSnapshots = prometheus.NewDesc("leakui_watch_snapshots",
		"Snapshots the watch holds (at most its keep).", []string{"watch"}, nil)
	watchScrapeDuration = prometheus.NewDesc("leakui_watch_last_scrape_duration_seconds",
		"How long the watch's last scrape took.", []string{"watch"}, nil)
	watchScrapeTime = prometheus.NewDesc("leakui_watch_last_scrape_timestamp_seconds",
		"When the watch's last scrape began, in seconds since the Unix epoch; 0 before the first.", []string{"watch"}, nil)
	watchScrapeError = prometheus.NewDesc("leakui_watch_last_scrape_error",
		"1 when the watch's last scrape failed (its page says why), else 0.", []string{"watch"}, nil)
	watchFailures = prometheus.NewDesc("leakui_watch_scrape_failures",
		"Scrapes of the watch that failed in a row.", []string{"watch"}, nil)
	watchStale = prometheus.NewDesc("leakui_watch_stale",
		"1 when the watch's JVM stopped pushing (no push for a multiple of its period, -watch-stale-after), else 0.", []string{"watch"}, nil)
)

type watchCollector struct {
	list func(ctx context.Context) ([]watch.Status, error)
}

func (c *watchCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{watchVerdict, watchGrowth, watchSnapshots, watchScrapeDuration, watchScrapeTime, watchScrapeError, watchFailures, watchStale} {
		ch <- d
	}
}

func (c *watchCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), SourceTimeout)
	defer cancel()
	ws, err := c.list(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(watchVerdict, err)
		return
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	for _, w := range ws {
		for _, v := range watch.Verdicts {
			gauge(watchVerdict, bool01(w.Verdict == v), w.Name, string(v))
		}
		gauge(watchGrowth, w.GrowthPerHour, w.Name, w.Unit)
		gauge(watchSnapshots, float64(w.Snapshots), w.Name)
		gauge(watchScrapeDuration, w.LastDuration.Seconds(), w.Name)
		last := 0.0
		if !w.LastScrape.IsZero() {
			last = float64(w.LastScrape.UnixMilli()) / 1e3
		}
		gauge(watchScrapeTime, last, w.Name)
		gauge(watchScrapeError, bool01(w.LastError != ""), w.Name)
		gauge(watchFailures, float64(w.Failures), w.Name)
		gauge(watchStale, bool01(w.Stale()), w.Name)
	}
}

func bool01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// The job queues' metrics, from the runner's snapshot at each scrape.
var (
	queueJobs = prometheus.NewDesc("leakui_jobs",
		"Jobs of a queue by state: queued, running, retrying (waiting for their back-off).", []string{"queue", "state"}, nil)
	queueOldestWait = prometheus.NewDesc("leakui_jobs_oldest_wait_seconds",
		"How long the queue's oldest waiting job has waited.", []string{"queue"}, nil)
)

type queueCollector struct {
	snapshot func(ctx context.Context) (jobs.Snapshot, error)
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- queueJobs
	ch <- queueOldestWait
}

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), SourceTimeout)
	defer cancel()
	s, err := c.snapshot(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(queueJobs, err)
		return
	}
	for _, q := range s.Queues {
		for state, n := range map[string]int{"queued": q.Queued, "running": q.Running, "retrying": q.Retrying} {
			ch <- prometheus.MustNewConstMetric(queueJobs, prometheus.GaugeValue, float64(n), q.Name, state)
		}
		ch <- prometheus.MustNewConstMetric(queueOldestWait, prometheus.GaugeValue, q.OldestWait.Seconds(), q.Name)
	}
}
