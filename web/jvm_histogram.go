package web

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
	"unsafe"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/classhist"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/snapshot"
	"github.com/leakui/leakui/web/view"
)

// histogramPrefix keys parsed histograms in the cache.
const histogramPrefix = "jvm-histogram"

// javaHistogramSummary is stored with a histogram report for the dashboard's list.
type javaHistogramSummary struct {
	Histograms     int    `json:"histograms"`
	Classes        int    `json:"classes"`
	TotalInstances int64  `json:"total_instances"`
	TotalBytes     int64  `json:"total_bytes"`
	Largest        string `json:"largest,omitempty"`
	LargestBytes   int64  `json:"largest_bytes,omitempty"`
	// The diff's numbers, first → last.
	BytesDelta       int64  `json:"bytes_delta,omitempty"`
	InstancesDelta   int64  `json:"instances_delta,omitempty"`
	TopGrowth        string `json:"top_growth,omitempty"`
	TopGrowthBytes   int64  `json:"top_growth_bytes,omitempty"`
	Suspect          string `json:"suspect,omitempty"`
	SuspectInstances int64  `json:"suspect_instances,omitempty"`
	// SeriesVerdict is the series analysis's verdict for three or more
	// histograms: "leak" when the series by instances or by bytes says so.
	SeriesVerdict string `json:"series_verdict,omitempty"`
}

// planJavaHistograms makes a histogram report of one histogram and a diff of two or
// more (every histogram of every file counts, oldest first).
func (s *Server) planJavaHistograms(form *kind.Upload) (*kind.Plan, error) {
	hs, params, err := snapshot.Plan(s.jvm, form, histogramPrefix, "histogram time", jvm.ParseHistogramsWithin,
		func(h *jvm.Histogram) time.Time { return h.Time })
	if err != nil {
		return nil, err
	}
	return histogramPlanOf(hs, params, func(i int) string {
		ref := params.Snapshots[i]
		return fmt.Sprintf("%s #%d", form.Files[ref.File].Name, ref.Index+1)
	})
}

// histogramPlanOf is the report of histograms in analysis order: the kind (one
// histogram or a diff, first → last) and the dashboard's numbers; nameOf names
// histogram i for the series of three or more.
func histogramPlanOf(hs []*jvm.Histogram, params snapshot.Params, nameOf func(i int) string) (*kind.Plan, error) {
	last := hs[len(hs)-1]
	sum := javaHistogramSummary{Histograms: len(hs), Classes: len(last.Classes), TotalInstances: last.TotalInstances, TotalBytes: last.TotalBytes}
	if top := last.Ranked(jvm.ByBytes); len(top) > 0 {
		sum.Largest, sum.LargestBytes = top[0].Name, top[0].Bytes
	}
	if len(hs) == 1 {
		return &kind.Plan{Kind: kindJavaHistogram, Params: params.AsMap(), Summary: sum}, nil
	}
	d := jvm.DiffHistograms(hs[0], last)
	sum.BytesDelta, sum.InstancesDelta = d.TotalBytes, d.TotalInstances
	if g := d.Grown(jvm.ByBytes, 1); len(g) > 0 {
		sum.TopGrowth, sum.TopGrowthBytes = g[0].Name, g[0].Bytes
	}
	if sus := d.Suspects(1); len(sus) > 0 {
		sum.Suspect, sum.SuspectInstances = sus[0].Name, sus[0].Instances
	}
	if len(hs) >= 3 {
		names := make([]string, len(hs))
		for i := range hs {
			names[i] = nameOf(i)
		}
		for _, o := range histogramSeriesOrders {
			s, err := histogramSeries(hs, names, o)
			if err != nil {
				return nil, err
			}
			if sum.SeriesVerdict == "" || s.Verdict == series.Leak {
				sum.SeriesVerdict = string(s.Verdict)
			}
		}
	}
	return &kind.Plan{Kind: kindJavaHistogramDiff, Params: params.AsMap(), Summary: sum}, nil
}

// javaHistogramSummaryLine is the dashboard's line for a histogram report.
func javaHistogramSummaryLine(raw json.RawMessage) string {
	var s javaHistogramSummary
	if json.Unmarshal(raw, &s) != nil || s.Histograms == 0 {
		return ""
	}
	if s.Histograms == 1 {
		line := fmt.Sprintf("%s classes, %s", analyze.FormatCount(int64(s.Classes)), analyze.FormatBytes(s.TotalBytes))
		if s.Largest != "" {
			line += fmt.Sprintf("; largest %s (%s)", page.CleanText(s.Largest, 80), analyze.FormatBytes(s.LargestBytes))
		}
		return line
	}
	line := fmt.Sprintf("%d histograms, objects %s", s.Histograms, analyze.FormatSignedValue(s.BytesDelta, "bytes"))
	if s.Suspect != "" {
		line += fmt.Sprintf("; suspect %s %s instances", page.CleanText(s.Suspect, 80), analyze.FormatSignedValue(s.SuspectInstances, "count"))
	} else if s.TopGrowth != "" {
		line += fmt.Sprintf("; grew most %s %s", page.CleanText(s.TopGrowth, 80), analyze.FormatSignedValue(s.TopGrowthBytes, "bytes"))
	}
	if s.SeriesVerdict != "" {
		line += "; series: " + series.Verdict(s.SeriesVerdict).Text()
	}
	return line
}

// histogramSet is a histogram report loaded: its histograms oldest first and the
// query that selects a view.
type histogramSet struct {
	*snapshot.Set[*jvm.Histogram]
	// cache keeps the diffs and series built (the server's jvmParsed).
	cache *kind.Cache[snapshot.Entry]
}

func (s *Server) loadHistogramSet(r *http.Request, rep *store.Report) (*histogramSet, error) {
	ss, err := snapshot.LoadSet(s.jvm, r, rep, histogramPrefix, jvm.ParseHistogramsWithin)
	if err != nil {
		return nil, err
	}
	return &histogramSet{ss, s.jvmParsed}, nil
}

// diff compares the query's base and target, cached: ranking the classes of two
// large histograms is the expensive part of a diff page, and the result depends
// only on the two snapshots.
func (hs *histogramSet) diff() *jvm.HistogramDiff {
	q := hs.Q
	b, t := hs.Refs[q.Base], hs.Refs[q.Target]
	key := fmt.Sprintf("%s-diff:%s#%d:%s#%d", histogramPrefix, hs.Rep.Artifacts[b.File].SHA256, b.Index, hs.Rep.Artifacts[t.File].SHA256, t.Index)
	if e, ok := hs.cache.Get(key); ok {
		if d, ok := e.Value.(*jvm.HistogramDiff); ok {
			return d
		}
	}
	d := jvm.DiffHistograms(hs.Items[q.Base], hs.Items[q.Target])
	// The rows' names are the histograms' own strings: a row costs its struct.
	hs.cache.Add(key, snapshot.Entry{Value: d, Cost: int64(cap(d.Classes)) * int64(unsafe.Sizeof(jvm.ClassChange{}))})
	return d
}

// header builds the page header: files (with how many histograms each holds),
// links, tabs.
func (hs *histogramSet) header(title string) view.JVMHeader {
	counts := make([]int, len(hs.Rep.Artifacts))
	times := make([]time.Time, len(hs.Rep.Artifacts))
	for i, ref := range hs.Refs {
		counts[ref.File]++
		if t := hs.Items[i].Time; !t.IsZero() && times[ref.File].IsZero() {
			times[ref.File] = t
		}
	}
	return hs.Set.Header(title, func(i int) string {
		if counts[i] > 1 {
			return fmt.Sprintf("JVM class histogram (%d histograms)", counts[i])
		}
		return "JVM class histogram"
	}, func(i int) time.Time { return times[i] })
}

func (hs *histogramSet) snapshots() *view.JavaSnapshotTable {
	return snapshot.Table(hs.Rep, hs.Q, hs.Refs, "histograms", []string{"classes", "instances", "bytes"},
		func(i int) int { return hs.Items[i].Line },
		func(i int) time.Time { return hs.Items[i].Time },
		func(i int) []string {
			h := hs.Items[i]
			return []string{analyze.FormatCount(int64(len(h.Classes))), analyze.FormatCount(h.TotalInstances), analyze.FormatBytes(h.TotalBytes)}
		})
}

// showJavaHistograms renders /r/{id} for histogram reports.
func (s *Server) showJavaHistograms(w http.ResponseWriter, r *http.Request, rep *store.Report) error {
	hs, err := s.loadHistogramSet(r, rep)
	if err != nil {
		return err
	}
	if i, ok := hs.Single(); ok {
		pg := hs.histogramPage(i)
		return s.render(w, r, http.StatusOK, view.Page{Title: pg.Header.Title, Nav: "reports", Description: pg.Header.Headline}, view.JavaHistogramPageView(pg))
	}
	pg := hs.diffPage()
	return s.render(w, r, http.StatusOK, view.Page{Title: pg.Header.Title, Nav: "reports", Description: pg.Header.Headline}, view.JavaHistogramDiffPageView(pg))
}

// histogramPage is the page model of histogram i alone.
func (hs *histogramSet) histogramPage(i int) view.JavaHistogramPage {
	h, q := hs.Items[i], hs.Q
	path := page.ReportURL(hs.Rep.ID)
	pg := view.JavaHistogramPage{Header: hs.header(hs.Name(i))}
	pg.Header.Meta = histogramMeta(h)
	pg.Header.Headline = classhist.Headline(h)
	pg.Header.Notices = h.Warnings
	pg.Figures = histogramFigures(h)
	pg.TotalCheck, pg.TotalOK = classhist.TotalCheck(h)
	for _, o := range []struct {
		label string
		order jvm.Order
	}{{"bytes", jvm.ByBytes}, {"instances", jvm.ByInstances}} {
		pg.Orders = append(pg.Orders, view.Link{Label: o.label, Current: q.Order == o.order,
			URL: q.URL(path, func(v url.Values) { v.Set("sort", o.label) })})
	}
	pg.Table = classhist.ClassTable(h, q.Order, q.Rows, q.ShowAll(path))
	pg.Snapshots = hs.snapshots()
	return pg
}

// histogramFigures are a histogram's big numbers: classes, instances, bytes.
func histogramFigures(h *jvm.Histogram) []view.JVMFigure {
	return []view.JVMFigure{
		{Label: "classes", Value: analyze.FormatCount(int64(len(h.Classes))), Key: "total-classes"},
		{Label: "instances", Value: analyze.FormatCount(h.TotalInstances), Key: "total-instances"},
		{Label: fmt.Sprintf("bytes on the heap (%s)", analyze.FormatCount(h.TotalBytes)), Value: analyze.FormatBytes(h.TotalBytes), Key: "total-bytes"},
	}
}

// histogramMeta describes a histogram: its layout, when it was taken, where.
func histogramMeta(h *jvm.Histogram) []view.Pair {
	m := []view.Pair{{Label: "Layout", Value: h.Format}}
	if !h.Time.IsZero() {
		m = append(m, view.Pair{Label: "Taken", Value: page.FormatTime(h.Time)})
	}
	m = append(m, view.Pair{Label: "Header line", Value: fmt.Sprint(h.Line)})
	return m
}

// diffPage is the page model of the diff base → target.
func (hs *histogramSet) diffPage() view.JavaHistogramDiffPage {
	q := hs.Q
	path := page.ReportURL(hs.Rep.ID)
	base, target := hs.Items[q.Base], hs.Items[q.Target]
	d := hs.diff()
	pg := view.JavaHistogramDiffPage{Header: hs.header(fmt.Sprintf("%s → %s", hs.Name(q.Base), hs.Name(q.Target)))}
	pg.Header.Meta = []view.Pair{{Label: "Base", Value: hs.Name(q.Base) + snapshot.TakenAt(base.Time)}, {Label: "Target", Value: hs.Name(q.Target) + snapshot.TakenAt(target.Time)}}
	if o := snapshot.OrderedBy(hs.Rep); o != "" {
		pg.Header.Meta = append(pg.Header.Meta, view.Pair{Label: "Ordered by", Value: o})
	}
	suspects := d.Suspects(q.Rows)
	pg.Header.Headline, pg.Header.Alarm = histogramDiffHeadline(d, suspects)
	for _, w := range base.Warnings {
		pg.Header.Notices = append(pg.Header.Notices, hs.Name(q.Base)+": "+w)
	}
	for _, w := range target.Warnings {
		pg.Header.Notices = append(pg.Header.Notices, hs.Name(q.Target)+": "+w)
	}
	pg.Figures = []view.JVMFigure{
		{Label: fmt.Sprintf("bytes: %s → %s", analyze.FormatBytes(d.BaseTotalBytes), analyze.FormatBytes(d.TargetTotalBytes)),
			Value: analyze.FormatSignedValue(d.TotalBytes, "bytes"), Key: "change-bytes", Grew: d.TotalBytes > 0, Shrank: d.TotalBytes < 0},
		{Label: fmt.Sprintf("instances: %s → %s", analyze.FormatCount(d.BaseTotalInstances), analyze.FormatCount(d.TargetTotalInstances)),
			Value: analyze.FormatSignedValue(d.TotalInstances, "count"), Key: "change-instances", Grew: d.TotalInstances > 0, Shrank: d.TotalInstances < 0},
	}
	showAll := q.ShowAll(path)
	n := jvmCountChanges(d)
	pg.Suspects = jvmChangeTable("suspects", "Leak suspects: application classes with more instances",
		"Classes outside the JDK (not java.*, javax.*, jdk.*, sun.*, com.sun.* or arrays) whose instance count grew, most new instances first. A leaked object's own bytes are small; the count of its class is what names the leak.",
		suspects, n.suspects, jvm.ByInstances, showAll)
	pg.ByBytes = jvmChangeTable("grown-bytes", "Growth in bytes", "", d.Grown(jvm.ByBytes, q.Rows), n.bytes, jvm.ByBytes, showAll)
	pg.ByInstances = jvmChangeTable("grown-instances", "Growth in instances", "", d.Grown(jvm.ByInstances, q.Rows), n.instances, jvm.ByInstances, showAll)
	var leak bool
	pg.Series, leak = hs.seriesViews(&pg.Header.Notices)
	pg.Header.Alarm = pg.Header.Alarm || leak
	pg.Snapshots = hs.snapshots()
	return pg
}

// histogramDiffHeadline says the verdict in plain text: the application class that
// multiplied most first (what names a leak), then what grew most in bytes.
func histogramDiffHeadline(d *jvm.HistogramDiff, suspects []jvm.ClassChange) (string, bool) {
	s := ""
	if len(suspects) > 0 {
		c := suspects[0]
		s = fmt.Sprintf("%s: %s → %s instances (%s), the application class that multiplied most. ", c.Name,
			analyze.FormatCount(c.BaseInstances), analyze.FormatCount(c.TargetInstances), analyze.FormatSignedValue(c.Instances, "count"))
	}
	s += fmt.Sprintf("Objects on the heap: %s → %s (%s).", analyze.FormatBytes(d.BaseTotalBytes), analyze.FormatBytes(d.TargetTotalBytes), analyze.FormatSignedValue(d.TotalBytes, "bytes"))
	if g := d.Grown(jvm.ByBytes, 1); len(g) > 0 {
		s += fmt.Sprintf(" Grew most in bytes: %s %s (%s instances).", classhist.ClassLabel(g[0].Name), analyze.FormatSignedValue(g[0].Bytes, "bytes"), analyze.FormatSignedValue(g[0].Instances, "count"))
	}
	return s, len(suspects) > 0 || d.TotalBytes > 0
}

// jvmChangeCounts counts the classes of each table of a diff: those that grew in
// bytes, in instances, and the application classes with more instances.
type jvmChangeCounts struct{ bytes, instances, suspects int }

func jvmCountChanges(d *jvm.HistogramDiff) jvmChangeCounts {
	var n jvmChangeCounts
	for _, c := range d.Classes {
		if c.Bytes > 0 {
			n.bytes++
		}
		if c.Instances > 0 {
			n.instances++
			if !jvm.IsPlatformClass(c.Name) {
				n.suspects++
			}
		}
	}
	return n
}

// jvmChangeTable formats the first rows of a ranked list of class changes of which
// there are all.
func jvmChangeTable(id, title, note string, shown []jvm.ClassChange, all int, order jvm.Order, showAll string) view.JavaChangeTable {
	t := view.JavaChangeTable{ID: id, Title: title, Note: note, By: classhist.OrderName(order), All: all}
	if len(shown) < all {
		t.ShowAll = showAll
	}
	t.Count = len(shown)
	var largest int64
	if len(shown) > 0 {
		largest = classhist.Measure(shown[0].Bytes, shown[0].Instances, order)
	}
	t.Rows = make([]view.JavaChangeRow, len(shown))
	for i, c := range shown {
		row := view.JavaChangeRow{
			Rank: i + 1, Name: c.Name,
			Bytes: analyze.FormatSignedValue(c.Bytes, "bytes"), Instances: analyze.FormatSignedValue(c.Instances, "count"),
			BaseBytes: analyze.FormatBytes(c.BaseBytes), TargetBytes: analyze.FormatBytes(c.TargetBytes),
			BaseInstances: analyze.FormatCount(c.BaseInstances), TargetInstances: analyze.FormatCount(c.TargetInstances),
			BytesValue: c.Bytes, InstancesValue: c.Instances, BytesGrew: c.Bytes > 0, InstancesGrew: c.Instances > 0,
			New: c.New(), Gone: c.TargetInstances == 0 && c.BaseInstances > 0,
			BarPct: page.BarPct(classhist.Measure(c.Bytes, c.Instances, order), largest),
		}
		if d := jvm.ClassDisplayName(c.Name); d != c.Name {
			row.Display = d
		}
		t.Rows[i] = row
	}
	return t
}

// javaHistogramJSON is the JSON twin of one histogram: the shape of
// `leakui histo -json` (total_instances, total_bytes, classes [{name, instances,
// bytes}] ranked by the query's sort and cut to n) with the snapshot it is.
type javaHistogramJSON struct {
	Snapshot snapshot.JSON `json:"snapshot"`
	*jvm.Histogram
	ClassCount int    `json:"class_count"`
	Order      string `json:"order"`
	Headline   string `json:"headline"`
}

// javaHistogramDiffJSON is the JSON twin of a diff: the shape of `leakui histo
// -json HISTOGRAM BASE` (classes ranked by the query's sort) with the tables of
// the page, each cut to n.
type javaHistogramDiffJSON struct {
	Base   snapshot.JSON `json:"base"`
	Target snapshot.JSON `json:"target"`
	*jvm.HistogramDiff
	GrownBytes     []jvm.ClassChange `json:"grown_bytes"`
	GrownInstances []jvm.ClassChange `json:"grown_instances"`
	Suspects       []jvm.ClassChange `json:"suspects"`
	Headline       string            `json:"headline"`
	Snapshots      []snapshot.JSON   `json:"snapshots"`
	// Series holds, for three or more histograms, the series analysis by
	// "instances" and by "bytes" (one series per class).
	Series map[string]*series.Report `json:"series,omitempty"`
}

// javaHistogramsJSON fills doc.Analysis for histogram reports.
func (s *Server) javaHistogramsJSON(r *http.Request, rep *store.Report, doc *kind.ReportJSON) error {
	hs, err := s.loadHistogramSet(r, rep)
	if err != nil {
		return err
	}
	doc.Analysis, err = hs.analysisJSON()
	return err
}

// analysisJSON is the JSON twin of the query's view: one histogram
// (javaHistogramJSON) or a diff (javaHistogramDiffJSON).
func (hs *histogramSet) analysisJSON() (any, error) {
	rep, q := hs.Rep, hs.Q
	if i, ok := hs.Single(); ok {
		h := hs.Items[i]
		shown := *h
		shown.Classes = snapshot.First(h.Ranked(q.Order), q.Rows)
		return javaHistogramJSON{Snapshot: snapshot.Of(rep, hs.Refs, i, h.Line, h.Time), Histogram: &shown,
			ClassCount: len(h.Classes), Order: classhist.OrderName(q.Order), Headline: h.Headline()}, nil
	}
	base, target := hs.Items[q.Base], hs.Items[q.Target]
	d := hs.diff()
	shown := *d
	shown.Classes = snapshot.First(d.Ranked(q.Order), q.Rows)
	out := javaHistogramDiffJSON{
		Base: snapshot.Of(rep, hs.Refs, q.Base, base.Line, base.Time), Target: snapshot.Of(rep, hs.Refs, q.Target, target.Line, target.Time),
		HistogramDiff: &shown,
		GrownBytes:    d.Grown(jvm.ByBytes, q.Rows), GrownInstances: d.Grown(jvm.ByInstances, q.Rows),
		Suspects: d.Suspects(q.Rows), Headline: d.Headline(),
	}
	for i, h := range hs.Items {
		out.Snapshots = append(out.Snapshots, snapshot.Of(rep, hs.Refs, i, h.Line, h.Time))
	}
	var err error
	if out.Series, err = hs.seriesJSON(); err != nil {
		return nil, err
	}
	return out, nil
}

// javaHistogramsMarkdown writes the ticket summary: the Markdown of the
// histogram or the diff, ten rows per table unless n says otherwise.
func (s *Server) javaHistogramsMarkdown(w io.Writer, r *http.Request, rep *store.Report) error {
	hs, err := s.loadHistogramSet(r, rep)
	if err != nil {
		return err
	}
	return hs.Markdown(w, r, jvmHistogramMarkdown, func(w io.Writer, rows int) error {
		if _, err := io.WriteString(w, jvmHistogramDiffMarkdown(hs.diff(), rows)); err != nil {
			return err
		}
		return hs.seriesMarkdown(w, rows)
	})
}
