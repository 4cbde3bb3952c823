package watch

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/spark"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/watch"
	"github.com/leakui/leakui/web/chart"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/view"
)

// listView is the list of watches.
type listView struct {
	Rows []rowView
	// Refresh is the seconds between two looks for news (live updating).
	Refresh int
}

// rowView is one watch as the list shows it, and the head of its page.
type rowView struct {
	Name, URL, Target string
	// Pushed is a JVM watch: its JVM pushes bundles, nothing is scraped, and
	// Action names what brings a snapshot ("push" or "scrape").
	Pushed bool
	Action string
	// Incident is the page of the incident the watch's alerts opened or
	// joined, "" for none.
	Incident, IncidentSlug string
	// Verdict is the data-verdict value: "leak", "inconclusive", "no-leak"
	// or "none"; VerdictText the badge's text, Class its colour ("bad" red,
	// "good" green, "" grey).
	Verdict, VerdictText, Class string
	Suspect, Growth             string
	// Spark is the sparkline's points (100×20), SparkOf what it draws and
	// SparkLast its last value.
	Spark, SparkOf, SparkLast string
	Snapshots                 string
	Every                     string
	LastScrape, LastDuration  string
	LastError                 string
	// Backoff says when a failing target is scraped again.
	Backoff string
	// Stale says since when a pushed watch's JVM has not pushed: its verdict
	// is of its last push, "" while pushes come.
	Stale   string
	Changed string
	// Unanalyzed says why the snapshots' series could not be shown.
	Unanalyzed string
}

// pageView is one watch's page.
type pageView struct {
	Row     rowView
	Reason  string
	JSONURL string
	Refresh int
	// Version changes whenever what the page shows does.
	Version    string
	Series     []seriesSection
	Deliveries []deliveryView
	Snapshots  []snapshotView
}

// seriesSection is one profile's series under its title.
type seriesSection struct {
	Title string
	View  view.SeriesView
}

// deliveryView is one alert delivered (or on its way) to one receiver.
type deliveryView struct {
	Receiver, Verdict, State, Class string
	Attempts, At, Delivered         string
	LastError                       string
}

// snapshotView is one snapshot held, with links to its profiles.
type snapshotView struct {
	Tick  string
	Links []view.Link
}

// verdictOf is a verdict as the pages name and colour it.
func verdictOf(v watch.Verdict) (key, text, class string) {
	switch v {
	case watch.Leak:
		return "leak", "leak suspected", "bad"
	case watch.Inconclusive:
		return "inconclusive", "inconclusive", ""
	case watch.NoLeak:
		return "no-leak", "no leak", "good"
	}
	return "none", "no verdict yet", ""
}

// formatTime is a time as the pages show it, "" for none.
func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return page.FormatTime(t)
}

// growthText is a growth per hour in its unit, or over a window shorter
// than watch.MinRateWindow the change over the window ("+28 MB in 12 s");
// a count of a goroutine profile counts goroutines.
func growthText(perHour float64, window time.Duration, unit, reason string) string {
	if perHour == 0 || math.IsNaN(perHour) || math.IsInf(perHour, 0) {
		return ""
	}
	return watch.GrowthText(perHour, window, func(v int64) string {
		s := analyze.FormatSignedValue(v, unit)
		if unit == "count" && strings.HasPrefix(reason, "goroutine") {
			s += " goroutines"
		}
		return s
	})
}

// windowOf is the time the watch's snapshots held span: from the first tick
// to the last, or without their analysis the ticks' period times the steps
// between them; 0 with fewer than two.
func windowOf(st watch.Status, a *Analysis) time.Duration {
	if a != nil {
		if n := len(a.Snapshots); n >= 2 {
			return a.Snapshots[n-1].Tick.Sub(a.Snapshots[0].Tick)
		}
		return 0
	}
	if st.Snapshots >= 2 {
		return time.Duration(st.Snapshots-1) * st.Every
	}
	return 0
}

// rowOf is a watch's row; a is nil when its snapshots were not analyzed,
// for the reason unanalyzed gives.
func rowOf(st watch.Status, a *Analysis, unanalyzed string) rowView {
	key, text, class := verdictOf(st.Verdict)
	r := rowView{Name: st.Name, URL: URL(st.Name), Target: st.URL, Verdict: key, VerdictText: text, Class: class,
		Suspect: st.Suspect, Growth: growthText(st.GrowthPerHour, windowOf(st, a), st.Unit, st.Reason),
		Snapshots: fmt.Sprintf("%d of %d", st.Snapshots, st.Keep), Every: st.Every.String(),
		LastScrape: formatTime(st.LastScrape), LastError: page.CleanText(st.LastError, 1000),
		Changed: formatTime(st.Changed), Unanalyzed: unanalyzed, Action: "scrape"}
	if st.URL == watch.JVM {
		r.Pushed, r.Action, r.Target = true, "push", "pushed by its JVM (leakui capture jvm -push)"
	}
	if st.Incident != "" {
		r.Incident, r.IncidentSlug = "/i/"+url.PathEscape(st.Incident), st.Incident
	}
	if !st.LastScrape.IsZero() {
		r.LastDuration = st.LastDuration.Round(time.Millisecond).String()
	}
	if st.Stale() {
		r.Stale = "stale since " + formatTime(st.StaleSince)
	}
	if st.Failures > 0 && !st.NextScrape.IsZero() {
		r.Backoff = fmt.Sprintf("%s in a row failed; next scrape at %s", page.OneOrMany(st.Failures, "1 scrape", strconv.Itoa(st.Failures)+" scrapes"), formatTime(st.NextScrape))
	}
	if a != nil {
		if values, what, unit := a.suspectSeries(st); len(values) > 0 {
			r.Spark, r.SparkOf, r.SparkLast = spark.Points(values, 100, 20), what, analyze.FormatValue(values[len(values)-1], unit)
		}
	}
	return r
}

// refreshOf is the seconds between two looks for news of watches ticking
// every every: the period, from 5 s to a minute.
func refreshOf(every time.Duration) int {
	return int(min(max(every, 5*time.Second), time.Minute) / time.Second)
}

// pageOf is a watch's page.
func pageOf(st watch.Status, a *Analysis, unanalyzed string, deliveries []store.Delivery) pageView {
	p := pageView{Row: rowOf(st, a, unanalyzed), Reason: st.Reason, JSONURL: JSONURL(st.Name), Refresh: refreshOf(st.Every),
		Version: versionOf(st, deliveries)}
	if a != nil {
		// The series the verdict came from first, in full, its verdict and
		// reason in the summary above; the others compact.
		m := a.main(st)
		if m != nil {
			p.Series = append(p.Series, seriesView(*m, false))
			p.Series[0].View.InBanner = m.Report.Reason != "" && st.Reason == m.Profile+": "+m.Report.Reason
		}
		for _, s := range a.Series {
			if m == nil || s.Profile != m.Profile {
				p.Series = append(p.Series, seriesView(s, true))
			}
		}
		for i := len(a.Snapshots) - 1; i >= 0; i-- {
			sn := a.Snapshots[i]
			v := snapshotView{Tick: formatTime(sn.Tick)}
			for _, pr := range profiles {
				if n, ok := sn.Sizes[pr.name]; ok {
					v.Links = append(v.Links, view.Link{Label: pr.name, URL: SnapshotURL(st.Name, sn.Tick.UnixMilli(), pr.name),
						Value: analyze.FormatBytes(int64(n))})
				}
			}
			if n, ok := sn.Sizes[bundle]; ok {
				v.Links = append(v.Links, view.Link{Label: bundle, URL: SnapshotURL(st.Name, sn.Tick.UnixMilli(), bundle),
					Value: analyze.FormatBytes(int64(n))})
			}
			p.Snapshots = append(p.Snapshots, v)
		}
	}
	for _, d := range deliveries {
		dv := deliveryView{Receiver: d.Receiver, Verdict: d.Verdict, State: d.State, Attempts: strconv.Itoa(d.Attempts),
			At: formatTime(d.EventAt), Delivered: formatTime(d.DeliveredAt), LastError: page.CleanText(d.LastError, 300)}
		switch d.State {
		case store.DeliveryDelivered:
			dv.Class = "good"
		case store.DeliveryFailed:
			dv.Class = "bad"
		}
		p.Deliveries = append(p.Deliveries, dv)
	}
	return p
}

// seriesView is one profile's series as the series pages show it.
func seriesView(s ProfileSeries, compact bool) seriesSection {
	return seriesSection{Title: "The " + s.Profile + " profile over the snapshots held",
		View: chart.Series("watch-"+s.Profile, s.Report, compact, nil)}
}

// versionOf names what a watch's page shows: its state and its deliveries'.
func versionOf(st watch.Status, deliveries []store.Delivery) string {
	v := fmt.Sprintf("%d.%d.%s.%d.%d.%t", st.LastScrape.UnixMilli(), st.Snapshots, st.Verdict, st.Failures, len(deliveries), st.Stale())
	if len(deliveries) > 0 {
		v += fmt.Sprintf(".%d.%s", deliveries[0].UpdatedAt.UnixMilli(), deliveries[0].State)
	}
	return v
}
