// Package watch owns what a watch is, apart from how it runs: the operator's
// declarations of the targets to watch (Parse, ParseFile): Go programs it
// scrapes, with where their credentials are, and JVMs that push their
// capture bundles, with where their push token is (Secret: env:VAR or
// file:PATH, read when used, never shown), the verdict a watch
// holds (NoLeak, Inconclusive, Leak), its state as pages and metrics show it
// (Status), and a change of its verdict (Change) as it is handed to a Notifier.
// It imports nothing but the standard library, so that the packages that
// deliver changes (alerts) and show them (metrics, pages) import it without
// the scraping, the store or the job system; package watch/watcher runs the
// watches.
package watch

import (
	"context"
	"fmt"
	"math"
	"time"
)

// Verdict is a watch's conclusion over the snapshots it holds.
type Verdict string

// The verdicts of a watch, from the calmest.
const (
	// None is a watch that has decided nothing yet: no snapshot taken.
	None Verdict = ""
	// NoLeak means nothing grew steadily over enough snapshots to say so (the
	// series verdicts "no steady growth" and "shrinking").
	NoLeak Verdict = "no leak"
	// Inconclusive means something grew, but over too few snapshots to tell.
	Inconclusive Verdict = "inconclusive"
	// Leak means a series grew steadily: a leak is suspected (or the Go
	// runtime proved goroutines leaked).
	Leak Verdict = "leak"
)

// Verdicts lists the verdicts a watch may hold once it has decided, calmest
// first (the values of the leakui_watch_verdict metric's verdict label).
var Verdicts = []Verdict{NoLeak, Inconclusive, Leak}

// Severity orders the verdicts: None 0, NoLeak 1, Inconclusive 2, Leak 3.
func (v Verdict) Severity() int {
	switch v {
	case NoLeak:
		return 1
	case Inconclusive:
		return 2
	case Leak:
		return 3
	}
	return 0
}

// Change is a watch's verdict changing, as it is handed to a Notifier: from
// no leak to inconclusive to leak, and back. A leak that clears is a Change
// whose From is Leak.
type Change struct {
	// Watch is the watch's name.
	Watch string `json:"watch"`
	// From and To are the verdicts before and after; From is None at a
	// watch's first verdict.
	From Verdict `json:"from"`
	To   Verdict `json:"to"`
	// Suspect names what grows (the function of the largest suspect), empty
	// when nothing does.
	Suspect string `json:"suspect,omitempty"`
	// GrowthPerHour is the suspect's growth per hour in Unit ("bytes" for a
	// heap profile, "count" for goroutines); 0 when there is no suspect.
	GrowthPerHour float64 `json:"growth_per_hour"`
	Unit          string  `json:"unit,omitempty"`
	// Window is the time from the first to the last snapshot the verdict
	// was decided over; a growth over a window shorter than MinRateWindow is
	// told as the change over the window (GrowthText), not per hour.
	Window time.Duration `json:"window,omitempty"`
	// ReportURL links to the watch's page, when the server knows its own
	// address.
	ReportURL string `json:"report_url,omitempty"`
	// At is the tick whose verdict changed.
	At time.Time `json:"at"`
}

// Resolved reports whether the change clears a leak.
func (c Change) Resolved() bool { return c.From == Leak && c.To != Leak }

// A Notifier is told of every change of a watch's verdict. Notify is called
// from the tick that decided it; it should queue the delivery and return
// (an error is logged, and the change is not told again).
type Notifier interface {
	Notify(ctx context.Context, c Change) error
}

// NotifierFunc is a function as a Notifier.
type NotifierFunc func(ctx context.Context, c Change) error

// Notify calls f.
func (f NotifierFunc) Notify(ctx context.Context, c Change) error { return f(ctx, c) }

// Status is a watch as its pages and metrics show it: its declaration and
// its state after its last tick.
type Status struct {
	Declaration
	// Verdict, Suspect, GrowthPerHour (in Unit) and Reason are the verdict
	// over the snapshots held, as of the last snapshot.
	Verdict       Verdict `json:"verdict"`
	Suspect       string  `json:"suspect,omitempty"`
	GrowthPerHour float64 `json:"growth_per_hour"`
	Unit          string  `json:"unit,omitempty"`
	Reason        string  `json:"reason,omitempty"`
	// Snapshots is how many snapshots the watch holds (at most Keep).
	Snapshots int `json:"snapshots"`
	// LastScrape is when the last scrape began, LastDuration how long it
	// took, LastError why it failed (empty when it did not).
	LastScrape   time.Time     `json:"last_scrape,omitzero"`
	LastDuration time.Duration `json:"last_duration"`
	LastError    string        `json:"last_error,omitempty"`
	// Failures counts the scrapes that failed in a row; NextScrape is the
	// first tick a target that keeps failing is scraped again at.
	Failures   int       `json:"failures,omitempty"`
	NextScrape time.Time `json:"next_scrape,omitzero"`
	// Changed is when the verdict last changed.
	Changed time.Time `json:"changed,omitzero"`
	// Incident is the slug of the incident the watch's alerts opened or
	// joined, "" for none.
	Incident string `json:"incident,omitempty"`
	// StaleSince, for a pushed watch whose JVM stopped pushing, is when it
	// became stale: its last push and a multiple of its Every (StaleAt);
	// zero while its pushes come, before its first, and for a scraped watch.
	StaleSince time.Time `json:"stale_since,omitzero"`
}

// DefaultStaleAfter is how many periods (Every) a pushed watch may go
// without a push before it is stale.
const DefaultStaleAfter = 3

// StaleAt is when a pushed watch that has been pushed to becomes stale if no
// push comes: its last push and after times its Every (DefaultStaleAfter
// when after ≤ 0); zero for a scraped watch or one never pushed to.
func (s Status) StaleAt(after int) time.Time {
	if !s.Pushed() || s.LastScrape.IsZero() || s.Every <= 0 {
		return time.Time{}
	}
	if after <= 0 {
		after = DefaultStaleAfter
	}
	return s.LastScrape.Add(time.Duration(after) * s.Every)
}

// MinRateWindow is the shortest window whose growth is told per hour: over a
// shorter one, a rate per hour multiplies a few seconds' change by hundreds
// (ticks a second apart read "+100 GB per hour"), so the change over the
// window is told instead ("+28 MB in 12 s"). It is the series analysis'
// MinRateSpan, under which it gives no rate per minute either.
const MinRateWindow = time.Minute

// GrowthText tells a growth per hour over a window in words, with format
// printing a signed value in its unit: "+1.2 GB per hour", or, over a window
// shorter than MinRateWindow, the change the rate gives over the window,
// "+28 MB in 12 s". A window of 0 (unknown) is told per hour.
func GrowthText(perHour float64, window time.Duration, format func(v int64) string) string {
	if window > 0 && window < MinRateWindow {
		return format(int64(math.Round(perHour*window.Hours()))) + " in " + WindowText(window)
	}
	return format(int64(math.Round(perHour))) + " per hour"
}

// WindowText is a short window in words: "12 s", "850 ms", "1 min 5 s".
func WindowText(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%d s", int64(d.Round(time.Second)/time.Second))
	}
	d = d.Round(time.Second)
	if s := d % time.Minute; s != 0 {
		return fmt.Sprintf("%d min %d s", int64(d/time.Minute), int64(s/time.Second))
	}
	return fmt.Sprintf("%d min", int64(d/time.Minute))
}

// Stale reports whether the watch is stale (StaleSince is set).
func (s Status) Stale() bool { return !s.StaleSince.IsZero() }
