package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze/capture"
	"github.com/leakui/leakui/analyze/goroutines"
	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/incident"
	"github.com/leakui/leakui/internal/pngchart"
	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/incidents"
	"github.com/leakui/leakui/web/page"
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
	if src, ok := iw.sources.get(key); ok {
		return src, nil
	}
	var src incidents.Source
	var final bool
	var err error
	if e.Kind == store.EvidenceRun {
		src, final, err = s.runSource(ctx, e.ID)
	} else {
		src, final, err = s.reportSource(ctx, e.ID)
	}
	if err != nil {
		return src, err
	}
	if final {
		iw.sources.add(key, src)
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
func (s *Server) runSource(ctx context.Context, id string) (incidents.Source, bool, error) {
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

// reportRequest is a request for a report's page without a query: the loaders
// that read their parameters from a request read the report's defaults.
func reportRequest(ctx context.Context, id string) *http.Request {
	r := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: page.ReportURL(id)}, Header: http.Header{}}
	return r.WithContext(ctx)
}

// reportSource judges a report with its kind's analysis.
func (s *Server) reportSource(ctx context.Context, id string) (incidents.Source, bool, error) {
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
	none := func(finding string) incidents.Source {
		return incidents.Source{Evidence: incident.Evidence{Kind: reportKindName(rep.Kind), Title: title, Strength: incident.None,
			Finding: finding, Link: link}}
	}
	switch rep.Status {
	case store.ReportAnalyzing:
		return none("still being analyzed"), false, nil
	case store.ReportFailed:
		return none("its analysis failed: " + page.Short(rep.Error, 200)), true, nil
	}
	var src incidents.Source
	switch rep.Kind {
	case modeSeries:
		src, err = s.profileSeriesSource(ctx, rep, title, link)
	case modeSingle:
		src, err = s.singleProfileSource(ctx, rep, title, link)
	case kindGoroutines, kindGoroutinesDiff:
		src, err = s.goroutinesSource(ctx, rep, title, link)
	case kindCapture:
		var cr *capture.Report
		if cr, err = s.loadCaptureReport(ctx, rep); err == nil {
			src = captureSource(cr, title, link)
		}
	case kindLog:
		var lr *logs.Report
		if _, lr, err = s.logReportOf(reportRequest(ctx, rep.ID), rep); err == nil {
			src = logSource(lr, title, link)
		}
	case kindJavaHeapDump:
		hr, _, herr := heapDumpReport(rep)
		if err = herr; err == nil {
			src.Evidence = incident.FromHeapDump(title, hr, link)
		}
	default:
		src = none(s.summaryLine(rep.Kind, rep.Summary))
	}
	if err != nil {
		return src, false, err
	}
	return src, true, nil
}

// reportKindName names a kind of report as a reader knows it.
func reportKindName(kind string) string {
	switch kind {
	case modeSingle:
		return "profile"
	case modeDiff:
		return "profile comparison"
	case modeSeries:
		return "profile series"
	case kindRun:
		return "lab run report"
	}
	return strings.ReplaceAll(kind, "-", " ")
}

// profileSeriesSource judges a series of profiles (heap or goroutine) and
// draws its totals.
func (s *Server) profileSeriesSource(ctx context.Context, rep *store.Report, title, link string) (incidents.Source, error) {
	ps, err := s.loadProfileSet(reportRequest(ctx, rep.ID), rep)
	if err != nil {
		return incidents.Source{}, err
	}
	defer ps.release()
	var notices []string
	sr, err := ps.profileSeries(&notices)
	if err != nil {
		return incidents.Source{}, err
	}
	kind, domain := "heap series", incident.Heap
	if ps.shown().IsGoroutineProfile() {
		kind, domain = "goroutine series", incident.Goroutines
	}
	src := incidents.Source{Evidence: incident.FromSeries(kind, title, domain, sr, link)}
	src.Series = append(src.Series, seriesTotals(kind+" "+sr.SampleType, sr))
	return src, nil
}

// seriesTotals is a series analysis' totals over its snapshots' times.
func seriesTotals(name string, sr *series.Report) pngchart.Series {
	out := pngchart.Series{Name: name, Unit: sr.Unit}
	for _, sn := range sr.Snapshots {
		if !sn.Time.IsZero() {
			out.Points = append(out.Points, pngchart.Point{T: sn.Time, V: float64(sn.Total)})
		}
	}
	return out
}

// singleProfileSource judges one profile: a goroutine profile by its
// goroutines (a goroutineleak profile proves them leaked), any other as
// evidence without a verdict.
func (s *Server) singleProfileSource(ctx context.Context, rep *store.Report, title, link string) (incidents.Source, error) {
	ps, err := s.loadProfileSet(reportRequest(ctx, rep.ID), rep)
	if err != nil {
		return incidents.Source{}, err
	}
	defer ps.release()
	if !ps.shown().IsGoroutineProfile() {
		return incidents.Source{Evidence: incident.Evidence{Kind: "profile", Title: title, Strength: incident.None,
			Finding: s.summaryLine(rep.Kind, rep.Summary), Link: link}}, nil
	}
	var notices []string
	_, _, _, gr, err := s.goroutineProfileReport(ctx, ps, &notices)
	if err != nil {
		return incidents.Source{}, err
	}
	return goroutineSource(gr, title, link), nil
}

// goroutinesSource judges a goroutine dump, or the first and last of several.
func (s *Server) goroutinesSource(ctx context.Context, rep *store.Report, title, link string) (incidents.Source, error) {
	if len(rep.Artifacts) == 0 {
		return incidents.Source{}, fmt.Errorf("report %s has no dumps", rep.ID)
	}
	base, target := "", rep.Artifacts[len(rep.Artifacts)-1].SHA256
	if len(rep.Artifacts) > 1 {
		base = rep.Artifacts[0].SHA256
	}
	gr, err := s.goroutineReport(ctx, base, target, "")
	if err != nil {
		return incidents.Source{}, err
	}
	return goroutineSource(gr, title, link), nil
}

// goroutineSource is a goroutine report's evidence, and its count at its
// time when it has one.
func goroutineSource(gr *goroutines.Report, title, link string) incidents.Source {
	src := incidents.Source{Evidence: incident.FromGoroutines(title, gr, link)}
	if gr.Time != nil && !gr.Time.IsZero() {
		src.Series = []pngchart.Series{{Name: "goroutines (" + title + ")", Unit: "count", Points: []pngchart.Point{{T: *gr.Time, V: float64(gr.Total)}}}}
	}
	return src
}

// captureSource judges capture bundles and draws, for a JVM, its resident
// set, its heap and the native memory NMT does not track, for a Go process
// its heap in use and goroutines, over the bundles' times.
func captureSource(cr *capture.Report, title, link string) incidents.Source {
	src := incidents.Source{Evidence: incident.FromCapture(title, cr, link)}
	if cr.Go != nil {
		heap := pngchart.Series{Name: "Go heap in use (capture)", Unit: "bytes"}
		gs := pngchart.Series{Name: "goroutines (capture)", Unit: "count"}
		for _, sn := range cr.Go.Snapshots {
			if sn.Time.IsZero() {
				continue
			}
			if sn.HeapInuse >= 0 {
				heap.Points = append(heap.Points, pngchart.Point{T: sn.Time, V: float64(sn.HeapInuse)})
			}
			if sn.Goroutines >= 0 {
				gs.Points = append(gs.Points, pngchart.Point{T: sn.Time, V: float64(sn.Goroutines)})
			}
		}
		src.Series = append(src.Series, heap, gs)
		return src
	}
	rss := pngchart.Series{Name: "JVM resident set (RSS)", Unit: "bytes"}
	heap := pngchart.Series{Name: "JVM heap resident", Unit: "bytes"}
	untracked := pngchart.Series{Name: "JVM native memory NMT does not track", Unit: "bytes"}
	for i, c := range cr.Captures {
		if c == nil || i >= len(cr.Bundles) {
			continue
		}
		sn := c.Snapshot(&cr.Bundles[i])
		if sn.Time.IsZero() {
			continue
		}
		if sn.RSS >= 0 {
			rss.Points = append(rss.Points, pngchart.Point{T: sn.Time, V: float64(sn.RSS)})
		}
		if sn.Heap >= 0 {
			heap.Points = append(heap.Points, pngchart.Point{T: sn.Time, V: float64(sn.Heap)})
		}
		if sn.RSS >= 0 && sn.Heap >= 0 && sn.NMT != nil {
			outside := sn.NMT.TotalCommitted
			for _, cat := range sn.NMT.Categories {
				if cat.Name == "Java Heap" {
					outside -= cat.Committed
				}
			}
			untracked.Points = append(untracked.Points, pngchart.Point{T: sn.Time, V: float64(sn.RSS - outside - sn.Heap)})
		}
	}
	src.Series = append(src.Series, untracked, rss, heap)
	return src
}

// logSource judges a log's pairs and draws its ERROR and WARN lines a minute
// and what each pair still had open, over its buckets.
func logSource(lr *logs.Report, title, link string) incidents.Source {
	src := incidents.Source{Evidence: incident.FromLog(title, lr, link)}
	if len(lr.Buckets) == 0 || lr.Yearless || lr.BucketMillis <= 0 {
		return src
	}
	minutes := float64(lr.BucketMillis) / float64(time.Minute/time.Millisecond)
	for _, level := range []int{1, 2} { // ERROR, WARN
		s := pngchart.Series{Name: logs.LevelNames[level] + " lines a minute (" + title + ")", Unit: "count"}
		any := false
		for _, b := range lr.Buckets {
			v := 0.0
			if level < len(b.Levels) {
				v = float64(b.Levels[level]) / minutes
				any = any || b.Levels[level] > 0
			}
			s.Points = append(s.Points, pngchart.Point{T: b.Start, V: v})
		}
		if any {
			src.Series = append(src.Series, s)
		}
	}
	for i, p := range lr.Pairs {
		if !p.Measurable {
			continue
		}
		s := pngchart.Series{Name: "still open: " + p.Name, Unit: "count"}
		for _, b := range lr.Buckets {
			if i < len(b.Open) {
				s.Points = append(s.Points, pngchart.Point{T: b.Start, V: float64(b.Open[i])})
			}
		}
		src.Series = append(src.Series, s)
	}
	return src
}
