package runs

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/internal/linechart"
	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/chart"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/view"
)

// runPage builds a run's page: the live part from its progress, the report part
// (diffs, captured files) once it has ended.
func (s *Kind) runPage(r *http.Request, id string) (view.RunPage, error) {
	run, p, err := s.runState(r, id)
	if err != nil {
		return view.RunPage{}, err
	}
	var spec lab.Spec
	page.Unmarshal(run.Spec, &spec)
	pg := view.RunPage{
		ID: run.ID, Title: spec.Title(), Status: p.Status, StatusClass: statusClass(p.Status), Verdict: p.Verdict,
		Reason: p.Reason, Error: p.Error, Running: p.Status == lab.StatusRunning, Step: p.Step, Steps: p.Steps,
		StepName: p.StepName, Snapshots: p.Snapshots, EventsURL: page.RunEventsURL(run.ID),
		CancelURL: page.RunCancelURL(run.ID),
		Elapsed:   "elapsed " + (time.Duration(p.ElapsedMs) * time.Millisecond).Round(time.Second).String(),
		Links:     []view.Link{{Label: "JSON", URL: page.RunJSONURL(run.ID)}},
	}
	if pg.StepName == "" {
		// Before the first event: the workload's unit, as its events will say.
		pg.StepName = stepWord(lab.UnitOf(spec.Workload))
		p.StepName = lab.UnitOf(spec.Workload)
	}
	if p.Phase != nil && pg.Running {
		pg.Phase = phaseText(p.Phase)
	}
	if p.Steps > 0 {
		pg.Pct = int(p.Step * 100 / p.Steps)
	}
	if pg.Running && p.RemainingMs > 0 {
		pg.Remaining = "about " + (time.Duration(p.RemainingMs) * time.Millisecond).Round(time.Second).String() + " left"
	}
	pg.Counters = runCounters(spec.Workload, p.Counters)
	if spec.Workload != lab.WorkloadCapture {
		pg.Charts = runCharts(p, nil)
		for i := range pg.Charts {
			pg.Charts[i].ImageURL = page.RunChartImageURL(run.ID, pg.Charts[i].ID)
		}
	}
	pg.Callout = runCallout(spec, p)
	pg.Details = append([]string(nil), p.Details...)
	if run.ReportID != "" {
		pg.Links = append(pg.Links,
			view.Link{Label: "report", URL: page.ReportURL(run.ReportID)},
			view.Link{Label: "Markdown", URL: page.ReportMarkdownURL(run.ReportID)})
	}
	if run.ReportID != "" && spec.Workload != lab.WorkloadCapture {
		rep, err := s.runReport(r.Context(), run.ID)
		if err != nil {
			return pg, err
		}
		// The run's own log, counted with its workload's preset (log_run.go).
		if rep.Log, err = s.Logs.RunLog(r.Context(), run.ID, spec); err != nil {
			return pg, err
		}
		// What a jvm run captured of its JVM, with the report views' own parts (jvm.go).
		if j, err := s.runJVMOf(r.Context(), run.ID, run.ReportID); err != nil {
			return pg, err
		} else if j != nil {
			rep.JVM = j.view()
		}
		pg.Report = rep
	}
	if run.ReportID != "" && spec.Workload == lab.WorkloadCapture {
		// A target capture shows the runtime's proof when it took it.
		arts, err := s.runArtifacts(r.Context(), run.ID)
		if err != nil {
			return pg, err
		}
		if j, ok, err := s.runProvenLeak(r.Context(), arts); err != nil {
			return pg, err
		} else if ok && j.Served {
			pg.Report = &view.RunReport{Sections: []view.Section{provenLeakSection(j)}}
		}
	}
	if pg.CompareWith, err = s.compareWith(r.Context(), run.ID, spec); err != nil {
		return pg, err
	}
	pg.Banner = runBanner(pg)
	if note := heapSeriesNote(pg); note != "" && (len(pg.Details) > 0 || pg.Callout != "") {
		pg.Details = append(pg.Details, note)
	}
	if why := stillGrows(spec, p, pg.Report); why != "" {
		pg.Banner.Notes = append(pg.Banner.Notes, why)
	}
	return pg, nil
}

// phaseText is a phase's line: "write segment 3 of 80".
func phaseText(ph *lab.Phase) string {
	if ph.Steps > 0 {
		return fmt.Sprintf("%s %d of %d", ph.Name, ph.Step, ph.Steps)
	}
	return fmt.Sprintf("%s %d", ph.Name, ph.Step)
}

// runCounters names a workload's counters: started, stopped, still open.
func runCounters(workload string, c map[string]int64) []view.Counter {
	var keys [][2]string
	switch workload {
	case lab.WorkloadCheckpoint:
		keys = [][2]string{{"consumer_starts", "consumer starts"}, {"consumer_stops", "consumer stops"}, {"open_consumers", "still open"}}
	case lab.WorkloadRecovery:
		keys = [][2]string{{"iterators_opened", "iterators opened"}, {"iterators_closed", "iterators closed"}, {"iterators_open", "still open"},
			{"batches", "batches"}, {"offheap_resident_bytes", "off-heap resident"}, {"offheap_bytes", "off-heap mapped"}}
	}
	out := make([]view.Counter, 0, len(keys))
	for _, k := range keys {
		v, ok := c[k[0]]
		if k[0] == "iterators_open" {
			_, ok = c["iterators_opened"] // not yet during the write phase
			v = c["iterators_opened"] - c["iterators_closed"]
		}
		if !ok {
			// Shown from the start, so the live page has it to update with the
			// first event.
			out = append(out, view.Counter{Key: k[0], Label: k[1], Value: "–"})
			continue
		}
		text := analyze.FormatCount(v)
		if k[0] == "offheap_bytes" || k[0] == "offheap_resident_bytes" {
			text = analyze.FormatBytes(v)
		}
		out = append(out, view.Counter{Key: k[0], Label: k[1], Value: text})
	}
	return out
}

// runChartSpecs are a run's charts: id, title, unit and lines.
var runChartSpecs = []struct {
	id, title, unit string
	series          []view.ChartSeries
}{
	{"goroutines", "Goroutines", "", []view.ChartSeries{{Key: "goroutines", Name: "goroutines", Class: "s1"}}},
	{"memory", "Memory", "bytes", []view.ChartSeries{
		{Key: "rss", Name: "RSS", Class: "s2"},
		{Key: "heap_inuse", Name: "Go heap in use", Class: "s1"},
		{Key: "offheap", Name: "off-heap mapped (model)", Class: "s3"}}},
	{"open", "Still open (started − closed)", "", []view.ChartSeries{{Key: "open", Name: "open", Class: "s4"}}},
}

// runCharts draws goroutines, memory and the open count against the steps. yMax,
// when given, holds the least top of each chart's y axis by id (runs compared
// side by side share their scales).
func runCharts(p lab.Progress, yMax map[string]float64) []view.Chart {
	var out []view.Chart
	for _, spec := range runChartSpecs {
		c := runLineChart(p, spec.title, spec.unit, spec.series)
		c.YMax = yMax[spec.id]
		out = append(out, chart.View(spec.id, c))
	}
	return out
}

// runChartMax is the largest value of each of a run's charts, by id.
func runChartMax(p lab.Progress) map[string]float64 {
	out := map[string]float64{}
	for _, spec := range runChartSpecs {
		out[spec.id] = runLineChart(p, spec.title, spec.unit, spec.series).DataMax()
	}
	return out
}

// runLineChart is the data of one of a run's charts.
func runLineChart(p lab.Progress, title, unit string, series []view.ChartSeries) linechart.Chart {
	x := make([]float64, len(p.Points))
	for i, pt := range p.Points {
		x[i] = float64(pt.Step)
	}
	c := linechart.Chart{Title: title, Unit: unit, XLabel: stepWord(p.StepName), X: x}
	for _, pt := range p.Points {
		if pt.At > 0 {
			c.Times = make([]float64, len(p.Points))
			for i, pt := range p.Points {
				c.Times[i] = float64(pt.At) / 1000
			}
			break
		}
	}
	for _, s := range series {
		values := make([]float64, len(p.Points))
		for i, pt := range p.Points {
			values[i] = float64(pointValue(pt, s.Key))
		}
		c.Series = append(c.Series, linechart.Series{Key: s.Key, Name: s.Name, Class: s.Class, Values: values})
	}
	if unit == "bytes" {
		c.Format = func(v float64) string { return analyze.FormatBytes(int64(v)) }
	}
	return c
}

func pointValue(pt lab.Point, key string) int64 {
	switch key {
	case "goroutines":
		return pt.Goroutines
	case "heap_inuse":
		return pt.HeapInuse
	case "rss":
		return pt.RSS
	case "offheap":
		return pt.OffHeap
	case "open":
		return pt.Open
	}
	return 0
}

func stepWord(name string) string {
	if name == "" {
		return "step"
	}
	return name
}

// calloutMinGap is the growth of RSS − heap in use below which the heap vs RSS
// callout stays quiet: the lab's verdict counts off-heap growth from the same
// 16 MiB (lab/verdict.go), below it RSS moves with the allocator's own noise.
const calloutMinGap = 16 << 20

// calloutMinResident is the model's own count of resident off-heap bytes
// (mincore, exact rather than noisy) from which the callout speaks even when
// RSS − heap in use grew less than calloutMinGap.
const calloutMinResident = 1 << 20

// runCallout names the heap vs RSS gap of the gzip model: the JVM's native zlib
// memory, which the heap profile does not see.
func runCallout(spec lab.Spec, p lab.Progress) string {
	if spec.Workload != lab.WorkloadRecovery || spec.Codec != "gzip" {
		return ""
	}
	if spec.Variant == lab.VariantJVM && p.Counters["jvm_streams"] > 0 {
		// The JVM's figures come with the done event, not from points: the
		// run's write and JVM phases make none.
		return fmt.Sprintf("These figures came from a real JVM, not the Go model: GzipLeak.java left %d GZIPInputStreams open and its resident set grew by %s (%s per stream), while Native Memory Tracking saw %s of it — zlib allocates with malloc, which NMT does not track. The two bundles leakui capture jvm took of the JVM, before and after its streams, are among the captured files.",
			p.Counters["jvm_streams"], analyze.FormatSignedValue(p.Counters["jvm_rss_after"]-p.Counters["jvm_rss_before"], "bytes"),
			analyze.FormatSignedValue(p.Counters["jvm_bytes_per_open_stream"], "bytes"),
			analyze.FormatSignedValue(p.Counters["jvm_nmt_committed_after"]-p.Counters["jvm_nmt_committed_before"], "bytes"))
	}
	if len(p.Points) < 2 {
		return ""
	}
	first, last := p.Points[0], p.Points[len(p.Points)-1]
	gap := (last.RSS - last.HeapInuse) - (first.RSS - first.HeapInuse)
	heap := last.HeapInuse - first.HeapInuse
	resident := p.Counters["offheap_resident_bytes"] // the model's own count of its resident off-heap pages (mincore)
	if gap <= calloutMinGap && resident < calloutMinResident {
		// Neither RSS − heap nor the model's resident off-heap memory grew:
		// nothing outside the heap to warn about.
		return ""
	}
	s := fmt.Sprintf("Heap vs RSS: RSS − Go heap in use grew by %s while the Go heap changed by %s. This variant models the JVM's native zlib memory: each gzip deep iterator keeps its inflate state and window off the heap until it is closed or a GC runs its cleanup (and the allocator keeps them resident after that, as glibc does), so the heap profile looks empty while the process runs out of memory.",
		analyze.FormatSignedValue(gap, "bytes"), analyze.FormatSignedValue(heap, "bytes"))
	if gap <= calloutMinGap {
		s += fmt.Sprintf(" The model counts %s of it resident outside the heap; RSS − heap in use understates it here, because the lab's capture buffers count as heap in use before their pages are touched.",
			analyze.FormatSignedValue(resident, "bytes"))
	}
	if jvm, open := p.Counters["jvm_bytes_per_open_stream"], p.Counters["iterators_opened"]-p.Counters["iterators_closed"]; jvm > 0 && open > 0 {
		s += fmt.Sprintf(" Per open iterator: %s resident in this run (the Go model, counted by mincore); %s in a real JVM — the figure that came from the JVM (GzipLeak.java: RSS per unclosed GZIPInputStream, JDK 17).",
			analyze.FormatSignedValue(p.Counters["offheap_resident_bytes"]/open, "bytes"), analyze.FormatSignedValue(jvm, "bytes"))
	}
	return s
}

func statusClass(status string) string {
	switch status {
	case lab.StatusDone:
		return "good"
	case lab.StatusRunning:
		return ""
	case lab.StatusCancelled, store.RunStatusInterrupted:
		return "warn"
	}
	return "bad"
}

// runReport builds the report part of a finished run: first → last heap and
// goroutine diffs and the captured files.
func (s *Kind) runReport(ctx context.Context, runID string) (*view.RunReport, error) {
	arts, err := s.runArtifacts(ctx, runID)
	if err != nil {
		return nil, err
	}
	rep := &view.RunReport{}
	for _, a := range arts {
		rep.Files = append(rep.Files, view.FileInfo{Name: a.Name, Kind: a.Role, Size: analyze.FormatBytes(a.Size),
			Time: page.FormatTime(a.TakenAt), Download: page.ArtifactURL(a.SHA256), SHA256: a.SHA256})
	}
	for _, role := range []string{"goroutine", "heap"} {
		sv, err := s.roleSeries(ctx, arts, role)
		if err != nil {
			return nil, err
		}
		if role == "heap" {
			rep.HeapSeries = sv
		} else {
			rep.GoroutineSeries = sv
		}
	}
	if j, ok, err := s.runProvenLeak(ctx, arts); err != nil {
		return nil, err
	} else if ok {
		rep.Sections = append(rep.Sections, provenLeakSection(j))
	}
	for _, role := range []string{"heap", "goroutine"} {
		first, last, ok := firstLast(arts, role)
		if !ok {
			continue
		}
		t, d, err := s.roleDiff(ctx, first, last)
		if err != nil {
			return nil, err
		}
		if role == "heap" {
			rep.HeapDiff = t
			rep.HeapBase, rep.HeapTarget = d.BaseTotal, d.TargetTotal
			if len(d.Rows) > 0 && d.Rows[0].Flat > 0 {
				rep.HeapTop, rep.HeapTopGrew = d.Rows[0].Name, d.Rows[0].Flat
			}
		} else {
			rep.GoroutineDiff = t
		}
	}
	return rep, nil
}

func (s *Kind) runArtifacts(ctx context.Context, runID string) ([]store.RunArtifact, error) {
	return s.d.Store.RunArtifacts(ctx, runID)
}

// firstLast finds the first and last captures of a role.
func firstLast(arts []store.RunArtifact, role string) (first, last store.RunArtifact, ok bool) {
	n := 0
	for _, a := range arts {
		if a.Role != role {
			continue
		}
		if n == 0 {
			first = a
		}
		last = a
		n++
	}
	return first, last, n >= 2
}

// roleDiff is the top of a first → last diff of two captured profiles.
func (s *Kind) roleDiff(ctx context.Context, first, last store.RunArtifact) (*view.DiffTable, pprof.DiffResult, error) {
	d, err := s.runDiff(ctx, first, last)
	if err != nil {
		return nil, d, err
	}
	t := &view.DiffTable{
		SampleType: d.SampleType, BaseName: first.Name, TargetName: last.Name,
		Base: analyze.FormatValue(d.BaseTotal, d.Unit), Target: analyze.FormatValue(d.TargetTotal, d.Unit),
		Change: analyze.FormatSignedValue(d.Change(), d.Unit), Ratio: analyze.SignedPercent(d.Change(), d.BaseTotal), Grew: d.Change() > 0, All: len(d.Rows),
	}
	for i, r := range d.Rows {
		if i == 10 {
			break
		}
		t.Rows = append(t.Rows, view.DiffRow{Rank: i + 1, Name: r.Name, Flat: analyze.FormatSignedValue(r.Flat, d.Unit), Cum: analyze.FormatSignedValue(r.Cum, d.Unit),
			BaseFlat: analyze.FormatValue(r.BaseFlat, d.Unit), TargetFlat: analyze.FormatValue(r.TargetFlat, d.Unit),
			PctOf: analyze.Percent(r.Flat, d.Total), FlatValue: r.Flat, CumValue: r.Cum, Grew: r.Flat > 0})
	}
	t.Count = len(t.Rows)
	return t, d, nil
}

// page.ClientIP is the client address the middleware found.
// roleSeries analyzes a run's captures of one role (heap or goroutine) as a
// series, in capture order; nil with fewer than three.
func (s *Kind) roleSeries(ctx context.Context, arts []store.RunArtifact, role string) (*view.SeriesView, error) {
	rep, err := s.runSeries(ctx, arts, role)
	if err != nil || rep == nil {
		return nil, err
	}
	sv := chart.Series(role, rep, true, nil)
	return &sv, nil
}

// runSeries is the series analysis of a run's captures of one role.
func (s *Kind) runSeries(ctx context.Context, arts []store.RunArtifact, role string) (*series.Report, error) {
	var snaps []pprof.Snapshot
	for _, a := range arts {
		if a.Role != role {
			continue
		}
		p, err := s.Profiles.Load(ctx, a.SHA256)
		if err != nil {
			return nil, err
		}
		snaps = append(snaps, pprof.Snapshot{Name: a.Name, Profile: p})
	}
	if len(snaps) < 3 {
		return nil, nil
	}
	// A run's goroutines are attributed to the function they were started in, as
	// its goroutine diff is: the leaked poll loop, not the runtime's park functions
	// or the standard library's network read its goroutines block in.
	return pprof.Series(snaps, series.Options{KeepOrder: true, GoroutineStart: true})
}

// runDiff compares a run's first and last capture of one role; goroutine diffs
// count the goroutines by the function they were started in
// (pprof.DiffByGoroutineStart), so runtime.gopark and runtime.selectgo, where
// every blocked goroutine waits, never head them.
func (s *Kind) runDiff(ctx context.Context, first, last store.RunArtifact) (pprof.DiffResult, error) {
	base, err := s.Profiles.Load(ctx, first.SHA256)
	if err != nil {
		return pprof.DiffResult{}, err
	}
	target, err := s.Profiles.Load(ctx, last.SHA256)
	if err != nil {
		return pprof.DiffResult{}, err
	}
	if first.Role == "goroutine" && base.IsGoroutineProfile() {
		return pprof.DiffByGoroutineStart(base, target)
	}
	return pprof.Diff(base, target, target.DefaultSampleIndex())
}
