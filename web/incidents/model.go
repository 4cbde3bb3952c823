package incidents

import (
	"github.com/leakui/leakui/incident"
)

// listPage is /i: the create form, the search and one page of incidents.
type listPage struct {
	Query, State string
	Items        []listItem
	// Next is the next page's URL, "" on the last.
	Next string
	// Error is what the create form refused, shown above it.
	Error string
	// Form holds what the create form was sent with, to show it again.
	Form createInput
}

// listItem is one incident of the list.
type listItem struct {
	Slug, URL, Title, TicketURL, State, Updated string
	Reports, Runs, Annotations                  int64
}

// incidentPage is /i/{slug}.
type incidentPage struct {
	Slug, Title, TicketURL, State string
	Created, Updated              string
	Reports, Runs, Annotations    int64
	MarkdownURL, JSONURL          string
	ImageURL                      string

	// Strength is the verdict's class ("bad", "warn", "good", "") and Badge
	// its words; Headline the sentence; Lead the strongest evidence's link.
	Strength, Badge, Headline, Lead, LeadNumber string
	// Strongest lists the strongest evidence first, at most maxStrongest.
	Strongest []evidenceRow
	// Judged is how many pieces the verdict is over; More how many it left
	// out (beyond one page).
	Judged, More   int
	Contradictions []string

	// Timeline is the chart's data (JSON); Panels the series it draws.
	Timeline string
	Panels   []panelRow
	Hidden   int
	// Untimed lists the evidence without times, beside the chart.
	Untimed     []evidenceRow
	UntimedMore int

	// Evidence is one page of what is attached, oldest first; Next the next
	// page's URL.
	Evidence []evidenceRow
	Next     string

	Notes     []noteRow
	MoreNotes int
}

// evidenceRow is one attached report or run with its verdict.
type evidenceRow struct {
	Kind, ID, Strength, StrengthClass, What, Title, Finding, Number, When, Link string
}

// panelRow names one series of the timeline, for readers without script.
type panelRow struct {
	Name, Unit, Source string
	Points             int
}

// noteRow is one annotation, numbered as the chart's markers are.
type noteRow struct {
	Number           int
	ID, At, Text, By string
}

// strengthClass is a strength's badge colour.
func strengthClass(s incident.Strength) string {
	switch s {
	case incident.Proven, incident.Suspected:
		return "bad"
	case incident.Inconclusive:
		return "warn"
	case incident.Clean:
		return "good"
	}
	return ""
}

// rowOf is a piece of evidence as the tables show it.
func rowOf(e incident.Evidence) evidenceRow {
	return evidenceRow{Strength: e.Strength.String(), StrengthClass: strengthClass(e.Strength), What: e.Kind, Title: e.Title,
		Finding: e.Finding, Number: e.NumberText(), When: when(e), Link: e.Link}
}

// when is a piece of evidence's time as shown.
func when(e incident.Evidence) string {
	switch {
	case e.Start.IsZero():
		return ""
	case e.End.IsZero() || e.End.Equal(e.Start):
		return formatTime(e.Start)
	}
	return formatTime(e.Start) + " – " + formatTime(e.End)
}
