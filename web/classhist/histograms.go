package classhist

import (
	"fmt"
	"net/url"
	"time"
	"unsafe"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/snapshot"
	"github.com/leakui/leakui/web/view"
)

// Histograms is a histogram report loaded: its histograms oldest first and the
// query that selects a view.
type Histograms struct {
	*snapshot.Set[*jvm.Histogram]
	// cache keeps the diffs and series built (the server's jvmParsed).
	Cache *kind.Cache[snapshot.Entry]
}

// Diff compares the query's base and target, cached: ranking the classes of two
// large histograms is the expensive part of a diff page, and the result depends
// only on the two snapshots.
func (hs *Histograms) Diff() *jvm.HistogramDiff {
	q := hs.Q
	b, t := hs.Refs[q.Base], hs.Refs[q.Target]
	key := fmt.Sprintf("%s-diff:%s#%d:%s#%d", Prefix, hs.Rep.Artifacts[b.File].SHA256, b.Index, hs.Rep.Artifacts[t.File].SHA256, t.Index)
	if e, ok := hs.Cache.Get(key); ok {
		if d, ok := e.Value.(*jvm.HistogramDiff); ok {
			return d
		}
	}
	d := jvm.DiffHistograms(hs.Items[q.Base], hs.Items[q.Target])
	// The rows' names are the histograms' own strings: a row costs its struct.
	hs.Cache.Add(key, snapshot.Entry{Value: d, Cost: int64(cap(d.Classes)) * int64(unsafe.Sizeof(jvm.ClassChange{}))})
	return d
}

// Header builds the page header: files (with how many histograms each holds),
// links, tabs.
func (hs *Histograms) Header(title string) view.JVMHeader {
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

func (hs *Histograms) Snapshots() *view.JVMSnapshotTable {
	return snapshot.Table(hs.Rep, hs.Q, hs.Refs, "histograms", []string{"classes", "instances", "bytes"},
		func(i int) int { return hs.Items[i].Line },
		func(i int) time.Time { return hs.Items[i].Time },
		func(i int) []string {
			h := hs.Items[i]
			return []string{analyze.FormatCount(int64(len(h.Classes))), analyze.FormatCount(h.TotalInstances), analyze.FormatBytes(h.TotalBytes)}
		})
}

// Page is the page model of histogram i alone.
func (hs *Histograms) Page(i int) view.JVMHistogramPage {
	h, q := hs.Items[i], hs.Q
	path := page.ReportURL(hs.Rep.ID)
	pg := view.JVMHistogramPage{Header: hs.Header(hs.Name(i))}
	pg.Header.Meta = meta(h)
	pg.Header.Headline = Headline(h)
	pg.Header.Notices = h.Warnings
	pg.Figures = Figures(h)
	pg.TotalCheck, pg.TotalOK = TotalCheck(h)
	for _, o := range []struct {
		label string
		order jvm.Order
	}{{"bytes", jvm.ByBytes}, {"instances", jvm.ByInstances}} {
		pg.Orders = append(pg.Orders, view.Link{Label: o.label, Current: q.Order == o.order,
			URL: q.URL(path, func(v url.Values) { v.Set("sort", o.label) })})
	}
	pg.Table = ClassTable(h, q.Order, q.Rows, q.ShowAll(path))
	pg.Snapshots = hs.Snapshots()
	return pg
}

// Figures are a histogram's big numbers: classes, instances, bytes.
func Figures(h *jvm.Histogram) []view.JVMFigure {
	return []view.JVMFigure{
		{Label: "classes", Value: analyze.FormatCount(int64(len(h.Classes))), Key: "total-classes"},
		{Label: "instances", Value: analyze.FormatCount(h.TotalInstances), Key: "total-instances"},
		{Label: fmt.Sprintf("bytes on the heap (%s)", analyze.FormatCount(h.TotalBytes)), Value: analyze.FormatBytes(h.TotalBytes), Key: "total-bytes"},
	}
}

// meta describes a histogram: its layout, when it was taken, where.
func meta(h *jvm.Histogram) []view.Pair {
	m := []view.Pair{{Label: "Layout", Value: h.Format}}
	if !h.Time.IsZero() {
		m = append(m, view.Pair{Label: "Taken", Value: page.FormatTime(h.Time)})
	}
	m = append(m, view.Pair{Label: "Header line", Value: fmt.Sprint(h.Line)})
	return m
}

// DiffPage is the page model of the diff base → target.
func (hs *Histograms) DiffPage() view.JVMHistogramDiffPage {
	q := hs.Q
	path := page.ReportURL(hs.Rep.ID)
	base, target := hs.Items[q.Base], hs.Items[q.Target]
	d := hs.Diff()
	pg := view.JVMHistogramDiffPage{Header: hs.Header(fmt.Sprintf("%s → %s", hs.Name(q.Base), hs.Name(q.Target)))}
	pg.Header.Meta = []view.Pair{{Label: "Base", Value: hs.Name(q.Base) + snapshot.TakenAt(base.Time)}, {Label: "Target", Value: hs.Name(q.Target) + snapshot.TakenAt(target.Time)}}
	if o := snapshot.OrderedBy(hs.Rep); o != "" {
		pg.Header.Meta = append(pg.Header.Meta, view.Pair{Label: "Ordered by", Value: o})
	}
	suspects := d.Suspects(q.Rows)
	pg.Header.Headline, pg.Header.Alarm = DiffHeadline(d, suspects)
	pg.Header.Shrank = d.TotalBytes < 0
	pg.Header.Notices = append(pg.Header.Notices, d.Warnings...)
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
	n := countChanges(d)
	pg.Suspects = ChangeTable("suspects", "Leak suspects: application classes with more instances",
		"Classes outside the JDK (not java.*, javax.*, jdk.*, sun.*, com.sun.* or arrays) whose instance count grew, most new instances first. A leaked object's own bytes are small; the count of its class is what names the leak.",
		suspects, n.suspects, jvm.ByInstances, showAll)
	pg.ByBytes = ChangeTable("grown-bytes", "Growth in bytes", "", d.Grown(jvm.ByBytes, q.Rows), n.bytes, jvm.ByBytes, showAll)
	pg.ByInstances = ChangeTable("grown-instances", "Growth in instances", "", d.Grown(jvm.ByInstances, q.Rows), n.instances, jvm.ByInstances, showAll)
	var leak bool
	pg.Series, leak = hs.SeriesViews(&pg.Header.Notices, len(d.Warnings) == 0)
	pg.Header.Alarm = pg.Header.Alarm || leak
	pg.Snapshots = hs.Snapshots()
	return pg
}

// DiffHeadline says the verdict in plain text: the application class that
// multiplied most first (what names a leak), then what grew most in bytes.
func DiffHeadline(d *jvm.HistogramDiff, suspects []jvm.ClassChange) (string, bool) {
	s := ""
	if len(suspects) > 0 {
		c := suspects[0]
		s = fmt.Sprintf("%s: %s → %s instances (%s), the application class that multiplied most. ", c.Name,
			analyze.FormatCount(c.BaseInstances), analyze.FormatCount(c.TargetInstances), analyze.FormatSignedValue(c.Instances, "count"))
	}
	s += fmt.Sprintf("Objects on the heap: %s → %s (%s).", analyze.FormatBytes(d.BaseTotalBytes), analyze.FormatBytes(d.TargetTotalBytes), analyze.FormatSignedValue(d.TotalBytes, "bytes"))
	if g := d.Grown(jvm.ByBytes, 1); len(g) > 0 {
		s += fmt.Sprintf(" Grew most in bytes: %s %s (%s instances).", ClassLabel(g[0].Name), analyze.FormatSignedValue(g[0].Bytes, "bytes"), analyze.FormatSignedValue(g[0].Instances, "count"))
	}
	return s, len(suspects) > 0 || d.TotalBytes > 0
}

// jvmChangeCounts counts the classes of each table of a diff: those that grew in
// bytes, in instances, and the application classes with more instances.
type changeCounts struct{ bytes, instances, suspects int }

func countChanges(d *jvm.HistogramDiff) changeCounts {
	var n changeCounts
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

// ChangeTable formats the first rows of a ranked list of class changes of which
// there are all.
func ChangeTable(id, title, note string, shown []jvm.ClassChange, all int, order jvm.Order, showAll string) view.JVMChangeTable {
	t := view.JVMChangeTable{ID: id, Title: title, Note: note, By: OrderName(order), All: all}
	if len(shown) < all {
		t.ShowAll = showAll
	}
	t.Count = len(shown)
	var largest int64
	if len(shown) > 0 {
		largest = Measure(shown[0].Bytes, shown[0].Instances, order)
	}
	t.Rows = make([]view.JVMChangeRow, len(shown))
	for i, c := range shown {
		row := view.JVMChangeRow{
			Rank: i + 1, Name: c.Name,
			Bytes: analyze.FormatSignedValue(c.Bytes, "bytes"), Instances: analyze.FormatSignedValue(c.Instances, "count"),
			BaseBytes: analyze.FormatBytes(c.BaseBytes), TargetBytes: analyze.FormatBytes(c.TargetBytes),
			BaseInstances: analyze.FormatCount(c.BaseInstances), TargetInstances: analyze.FormatCount(c.TargetInstances),
			BytesValue: c.Bytes, InstancesValue: c.Instances, BytesGrew: c.Bytes > 0, InstancesGrew: c.Instances > 0,
			New: c.New(), Gone: c.TargetInstances == 0 && c.BaseInstances > 0,
			BarPct: page.BarPct(Measure(c.Bytes, c.Instances, order), largest),
		}
		if d := jvm.ClassDisplayName(c.Name); d != c.Name {
			row.Display = d
		}
		t.Rows[i] = row
	}
	return t
}

// JSON is the JSON twin of one histogram: the shape of
// `leakui histo -json` (total_instances, total_bytes, classes [{name, instances,
// bytes}] ranked by the query's sort and cut to n) with the snapshot it is.
type JSON struct {
	Snapshot snapshot.JSON `json:"snapshot"`
	*jvm.Histogram
	ClassCount int    `json:"class_count"`
	Order      string `json:"order"`
	Headline   string `json:"headline"`
}

// DiffJSON is the JSON twin of a diff: the shape of `leakui histo
// -json HISTOGRAM BASE` (classes ranked by the query's sort) with the tables of
// the page, each cut to n.
type DiffJSON struct {
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

// AnalysisJSON is the JSON twin of the query's view: one histogram
// (jvmHistogramJSON) or a diff (jvmHistogramDiffJSON).
func (hs *Histograms) AnalysisJSON() (any, error) {
	rep, q := hs.Rep, hs.Q
	if i, ok := hs.Single(); ok {
		h := hs.Items[i]
		shown := *h
		shown.Classes = snapshot.First(h.Ranked(q.Order), q.Rows)
		return JSON{Snapshot: snapshot.Of(rep, hs.Refs, i, h.Line, h.Time), Histogram: &shown,
			ClassCount: len(h.Classes), Order: OrderName(q.Order), Headline: h.Headline()}, nil
	}
	base, target := hs.Items[q.Base], hs.Items[q.Target]
	d := hs.Diff()
	shown := *d
	shown.Classes = snapshot.First(d.Ranked(q.Order), q.Rows)
	out := DiffJSON{
		Base: snapshot.Of(rep, hs.Refs, q.Base, base.Line, base.Time), Target: snapshot.Of(rep, hs.Refs, q.Target, target.Line, target.Time),
		HistogramDiff: &shown,
		GrownBytes:    d.Grown(jvm.ByBytes, q.Rows), GrownInstances: d.Grown(jvm.ByInstances, q.Rows),
		Suspects: d.Suspects(q.Rows), Headline: d.Headline(),
	}
	for i, h := range hs.Items {
		out.Snapshots = append(out.Snapshots, snapshot.Of(rep, hs.Refs, i, h.Line, h.Time))
	}
	var err error
	if out.Series, err = hs.SeriesJSON(); err != nil {
		return nil, err
	}
	return out, nil
}

// Prefix keys parsed histograms in the cache.
const Prefix = "jvm-histogram"
