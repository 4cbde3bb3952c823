package web

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/leakui/leakui/incident"
	"github.com/leakui/leakui/internal/pngchart"
	"github.com/leakui/leakui/lab"
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
		src, final, err = incidentPages{s}.runSource(ctx, e.ID)
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

// sourceCost is what a cached source holds, about.
func sourceCost(src incidents.Source) int64 {
	n := int64(1024 + len(src.Evidence.Sentence) + len(src.Evidence.Finding))
	for _, s := range src.Series {
		n += int64(64 + len(s.Name) + 48*len(s.Points))
	}
	return n + int64(64*len(src.Events))
}

// runSource judges a lab run by its verdict, and marks its start and end.
func (s incidentPages) runSource(ctx context.Context, id string) (incidents.Source, bool, error) {
	run, err := s.store.Run(ctx, id)
	if err != nil {
		return incidents.Source{}, false, err
	}
	var spec lab.Spec
	page.Unmarshal(run.Spec, &spec)
	title := spec.Title()
	if title == "" {
		title = run.Workload
	}
	ev := incident.FromRun(title, run.Verdict, run.Reason, run.CreatedAt, run.FinishedAt, page.RunURL(run.ID))
	src := incidents.Source{Evidence: ev, Events: []pngchart.Marker{{T: run.CreatedAt, Label: "lab run started: " + title}}}
	if !run.FinishedAt.IsZero() {
		end := "lab run " + run.Status
		if run.Verdict != "" {
			end += ": " + run.Verdict
		}
		src.Events = append(src.Events, pngchart.Marker{T: run.FinishedAt, Label: end})
	}
	// What the run's model kept open after each step (started − closed).
	var progress lab.Progress
	page.Unmarshal(run.Progress, &progress)
	open := pngchart.Series{Name: "lab run: still open (" + title + ")", Unit: "count"}
	for _, p := range progress.Points {
		if p.At > 0 {
			open.Points = append(open.Points, pngchart.Point{T: time.UnixMilli(p.At).UTC(), V: float64(p.Open)})
		}
	}
	src.Series = append(src.Series, open)
	return src, !run.FinishedAt.IsZero(), nil
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
