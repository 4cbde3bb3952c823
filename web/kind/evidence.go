package kind

import (
	"context"
	"net/http"
	"net/url"

	"github.com/leakui/leakui/incident"
	"github.com/leakui/leakui/internal/pngchart"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/page"
)

// Evidencer is a kind whose reports an incident judges (web/incidents): what a
// ready report says, with the analysis and caches its own page uses, and what
// it adds to the incident's timeline. The root asks only for ready reports; a
// kind that is not an Evidencer shows as evidence without a verdict, its
// summary line as its finding.
type Evidencer interface {
	// Evidence judges rep; title names it (its first file) and link is its page.
	Evidence(ctx context.Context, rep *store.Report, title, link string) (Evidence, error)
}

// Evidence is one attached report or run as an incident shows it: what its
// analysis judged, and what it contributes to the timeline.
type Evidence struct {
	Evidence incident.Evidence
	// Series are its values over time (heap totals, goroutines, the resident
	// set, log rates, things still open), each named with its source and in
	// its unit.
	Series []pngchart.Series
	// Events are moments it marks on the timeline (a lab run's start and end).
	Events []pngchart.Marker
}

// DefaultRequest is a GET of rep's page without a query, for the loaders that
// read their parameters from a request: they read the report's defaults.
func DefaultRequest(ctx context.Context, rep *store.Report) *http.Request {
	r := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: page.ReportURL(rep.ID)}, Header: http.Header{}}
	return r.WithContext(ctx)
}

// NoVerdict is evidence of kind (as a reader names it) that judges nothing:
// finding says what it is instead.
func NoVerdict(kind, title, finding, link string) Evidence {
	return Evidence{Evidence: incident.Evidence{Kind: kind, Title: title, Strength: incident.None, Finding: finding, Link: link}}
}
