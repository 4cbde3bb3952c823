package watch

import (
	"net/http"
	"time"

	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/watch"
	"github.com/leakui/leakui/web/page"
)

// listJSON is /watch.json.
type listJSON struct {
	Watches []statusJSON `json:"watches"`
}

// statusJSON is a watch as the list's JSON and its own JSON show it.
type statusJSON struct {
	Name    string `json:"name"`
	URL     string `json:"url"`
	JSONURL string `json:"json_url"`
	// Target is the URL the watch scrapes.
	Target string `json:"target"`
	// Every is the period in seconds; Keep the snapshots the window holds.
	Every         float64       `json:"every_seconds"`
	Keep          int           `json:"keep"`
	Verdict       watch.Verdict `json:"verdict"`
	Suspect       string        `json:"suspect,omitempty"`
	GrowthPerHour float64       `json:"growth_per_hour"`
	// WindowSeconds is the time the snapshots held span; Growth tells the
	// growth as the page does: per hour, or over a window shorter than a
	// minute the change over it.
	WindowSeconds float64   `json:"window_seconds"`
	Growth        string    `json:"growth,omitempty"`
	Unit          string    `json:"unit,omitempty"`
	Reason        string    `json:"reason,omitempty"`
	Snapshots     int       `json:"snapshots"`
	LastScrape    time.Time `json:"last_scrape,omitzero"`
	// LastDuration is the last scrape's duration in seconds.
	LastDuration float64   `json:"last_duration_seconds"`
	LastError    string    `json:"last_error,omitempty"`
	Failures     int       `json:"failures,omitempty"`
	NextScrape   time.Time `json:"next_scrape,omitzero"`
	Changed      time.Time `json:"changed,omitzero"`
	// Stale is a pushed watch whose JVM stopped pushing, since StaleSince.
	Stale      bool      `json:"stale"`
	StaleSince time.Time `json:"stale_since,omitzero"`
	// Spark is the series the list's sparkline draws.
	Spark *sparkJSON `json:"spark,omitempty"`
	// Unanalyzed says why the snapshots' series are not shown.
	Unanalyzed string `json:"unanalyzed,omitempty"`
}

// sparkJSON is the suspect's series (or the totals) over the snapshots.
type sparkJSON struct {
	Of     string  `json:"of"`
	Unit   string  `json:"unit,omitempty"`
	Values []int64 `json:"values"`
}

// watchJSON is /watch/{name}.json: the watch, its series analyses, the alerts
// its changes delivered and its snapshots.
type watchJSON struct {
	statusJSON
	// Version changes whenever what the page shows does; the page's script
	// reloads what it shows when it does.
	Version    string         `json:"version"`
	Series     []seriesJSON   `json:"series"`
	Deliveries []deliveryJSON `json:"deliveries"`
	Held       []snapshotJSON `json:"held"`
}

type seriesJSON struct {
	Profile string         `json:"profile"`
	Report  *series.Report `json:"report"`
}

type deliveryJSON struct {
	Receiver    string    `json:"receiver"`
	Verdict     string    `json:"verdict"`
	State       string    `json:"state"`
	Attempts    int       `json:"attempts"`
	LastStatus  int       `json:"last_status,omitempty"`
	LastError   string    `json:"last_error,omitempty"`
	EventAt     time.Time `json:"event_at"`
	DeliveredAt time.Time `json:"delivered_at,omitzero"`
}

// snapshotJSON is one snapshot held: its tick and the download link of each
// profile it holds.
type snapshotJSON struct {
	Tick     time.Time         `json:"tick"`
	TakenAt  time.Time         `json:"taken_at,omitzero"`
	Profiles map[string]string `json:"profiles"`
}

func statusJSONOf(r *http.Request, st watch.Status, a *Analysis, unanalyzed string) statusJSON {
	out := statusJSON{Name: st.Name, URL: page.Absolute(r, URL(st.Name)), JSONURL: page.Absolute(r, JSONURL(st.Name)),
		Target: st.URL, Every: st.Every.Seconds(), Keep: st.Keep, Verdict: st.Verdict, Suspect: st.Suspect,
		GrowthPerHour: st.GrowthPerHour, Unit: st.Unit, Reason: st.Reason, Snapshots: st.Snapshots,
		LastScrape: st.LastScrape.UTC(), LastDuration: st.LastDuration.Seconds(), LastError: st.LastError,
		Failures: st.Failures, NextScrape: st.NextScrape.UTC(), Changed: st.Changed.UTC(), Unanalyzed: unanalyzed}
	window := windowOf(st, a)
	out.WindowSeconds, out.Growth = window.Seconds(), growthText(st.GrowthPerHour, window, st.Unit, st.Reason)
	if st.LastScrape.IsZero() {
		out.LastScrape = time.Time{}
	}
	if st.NextScrape.IsZero() {
		out.NextScrape = time.Time{}
	}
	if st.Changed.IsZero() {
		out.Changed = time.Time{}
	}
	if out.Stale = st.Stale(); out.Stale {
		out.StaleSince = st.StaleSince.UTC()
	}
	if a != nil {
		if values, of, unit := a.suspectSeries(st); len(values) > 0 {
			out.Spark = &sparkJSON{Of: of, Unit: unit, Values: values}
		}
	}
	return out
}

func watchJSONOf(r *http.Request, st watch.Status, a *Analysis, unanalyzed string, deliveries []store.Delivery) watchJSON {
	out := watchJSON{statusJSON: statusJSONOf(r, st, a, unanalyzed), Version: versionOf(st, deliveries),
		Series: []seriesJSON{}, Deliveries: []deliveryJSON{}, Held: []snapshotJSON{}}
	if a != nil {
		for _, s := range a.Series {
			out.Series = append(out.Series, seriesJSON(s))
		}
		for _, sn := range a.Snapshots {
			sj := snapshotJSON{Tick: sn.Tick.UTC(), TakenAt: sn.TakenAt.UTC(), Profiles: map[string]string{}}
			for name := range sn.Sizes {
				sj.Profiles[name] = page.Absolute(r, SnapshotURL(st.Name, sn.Tick.UnixMilli(), name))
			}
			out.Held = append(out.Held, sj)
		}
	}
	for _, d := range deliveries {
		dj := deliveryJSON{Receiver: d.Receiver, Verdict: d.Verdict, State: d.State, Attempts: d.Attempts,
			LastStatus: d.LastStatus, LastError: d.LastError, EventAt: d.EventAt.UTC()}
		if !d.DeliveredAt.IsZero() {
			dj.DeliveredAt = d.DeliveredAt.UTC()
		}
		out.Deliveries = append(out.Deliveries, dj)
	}
	return out
}
