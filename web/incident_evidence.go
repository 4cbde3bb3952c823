package web

import (
	"context"
	"fmt"
	"strings"

	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/incidents"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/profiles"
)

// incidentSourceEntries bounds the cache of judged evidence: an incident's
// page judges at most store.MaxIncidentPage pieces, each a few kilobytes.
const incidentSourceEntries = 2 * store.MaxIncidentPage

// incidentSource turns an attached report or run into what an incident shows
// of it, with the analysis its own page uses (the same loaders and caches):
// the one dispatch on the kind of report for incidents. A finished run and a
// ready report never change, so what they say is kept (incidentWiring.sources).
func (iw incidentWiring) source(ctx context.Context, e store.Evidence) (incidents.Source, error) {
	s := iw.s
	key := e.Kind + ":" + e.ID
	if src, ok := iw.sources.Get(key); ok {
		return src, nil
	}
	var src incidents.Source
	var final bool
	var err error
	if e.Kind == store.EvidenceRun {
		src, final, err = incidents.RunSource(ctx, s.store, e.ID)
	} else {
		src, final, err = incidentPages{s}.reportSource(ctx, e.ID)
	}
	if err != nil {
		return src, err
	}
	if final {
		iw.sources.Add(key, src)
	}
	return src, nil
}

// reportSource judges a report with its kind's analysis: the one dispatch
// on kinds (kind.Evidencer); a kind that judges nothing shows its summary
// line.
func (s incidentPages) reportSource(ctx context.Context, id string) (incidents.Source, bool, error) {
	rep, err := s.store.Report(ctx, id)
	if err != nil {
		return incidents.Source{}, false, err
	}
	link := page.ReportURL(rep.ID)
	title := ""
	if len(rep.Artifacts) > 0 {
		title = rep.Artifacts[0].Name
		if len(rep.Artifacts) > 1 {
			title += fmt.Sprintf(" and %d more", len(rep.Artifacts)-1)
		}
	}
	switch rep.Status {
	case store.ReportAnalyzing:
		return kind.NoVerdict(reportKindName(rep.Kind), title, "still being analyzed", link), false, nil
	case store.ReportFailed:
		return kind.NoVerdict(reportKindName(rep.Kind), title, "its analysis failed: "+page.Short(rep.Error, 200), link), true, nil
	}
	var src incidents.Source
	k, _ := s.kinds.For(rep.Kind)
	if ev, ok := k.(kind.Evidencer); ok {
		src, err = ev.Evidence(ctx, rep, title, link)
	} else {
		src = kind.NoVerdict(reportKindName(rep.Kind), title, s.summaryLine(rep.Kind, rep.Summary), link)
	}
	if err != nil {
		return src, false, err
	}
	return src, true, nil
}

// reportKindName names a kind of report as a reader knows it.
func reportKindName(k string) string {
	switch k {
	case profiles.ReportSingle:
		return "profile"
	case profiles.ReportDiff:
		return "profile comparison"
	case profiles.ReportSeries:
		return "profile series"
	case kindRun:
		return "lab run report"
	}
	return strings.ReplaceAll(k, "-", " ")
}
