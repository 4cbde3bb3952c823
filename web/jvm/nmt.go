package jvm

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/snapshot"
	"github.com/leakui/leakui/web/view"
)

// NMTPrefix keys parsed native memory reports in the cache.
const NMTPrefix = "jvm-nmt"

// jvmNMTSummary is stored with a native memory report for the dashboard's list.
type jvmNMTSummary struct {
	Reports        int   `json:"reports"`
	Committed      int64 `json:"committed"`
	Reserved       int64 `json:"reserved"`
	HeapCommitted  int64 `json:"heap_committed"`
	SummaryDiff    bool  `json:"summary_diff,omitempty"`
	CommittedDelta int64 `json:"committed_delta,omitempty"`
	NonHeapDelta   int64 `json:"non_heap_delta,omitempty"`
	NativeLeak     bool  `json:"native_leak,omitempty"`
}

// planJVMNMT makes a native memory report of one report and a diff of two or more
// (every report of every file counts, oldest first).
func (s *NMT) planJVMNMT(form *kind.Upload) (*kind.Plan, error) {
	ns, params, err := snapshot.Plan(s.jvm, form, NMTPrefix, "report time", jvm.ParseNMTsWithin,
		func(n *jvm.NMT) time.Time { return n.Time })
	if err != nil {
		return nil, err
	}
	return NMTPlanOf(ns, params), nil
}

// NMTPlanOf is the report of native memory reports in analysis order: the
// kind (one report or a diff, first → last) and the dashboard's numbers.
func NMTPlanOf(ns []*jvm.NMT, params snapshot.Params) *kind.Plan {
	last := ns[len(ns)-1]
	heap, _ := last.Category(jvm.HeapCategory)
	sum := jvmNMTSummary{Reports: len(ns), Committed: last.TotalCommitted, Reserved: last.TotalReserved, HeapCommitted: heap.Committed, SummaryDiff: last.Diff}
	rk := kindJVMNMT
	d := last.BaselineDiff()
	if len(ns) > 1 {
		rk = kindJVMNMTDiff
		d = jvm.DiffNMT(ns[0], last)
	}
	if d != nil {
		sum.CommittedDelta, sum.NonHeapDelta, sum.NativeLeak = d.TotalCommittedDelta, d.NonHeapCommittedDelta, d.NativeLeak != nil
	}
	return &kind.Plan{Kind: rk, Params: params.AsMap(), Summary: sum}
}

// jvmNMTSummaryLine is the dashboard's line for a native memory report.
func jvmNMTSummaryLine(raw json.RawMessage) string {
	var s jvmNMTSummary
	if json.Unmarshal(raw, &s) != nil || s.Reports == 0 {
		return ""
	}
	line := fmt.Sprintf("committed %s, Java heap %s", analyze.FormatBytes(s.Committed), analyze.FormatBytes(s.HeapCommitted))
	if s.Reports > 1 || s.SummaryDiff {
		line = fmt.Sprintf("committed %s, outside the heap %s", analyze.FormatSignedValue(s.CommittedDelta, "bytes"), analyze.FormatSignedValue(s.NonHeapDelta, "bytes"))
	}
	if s.NativeLeak {
		line += "; native leak signature"
	}
	return line
}

// nmtSet is a native memory report loaded: its reports oldest first and the query.
type nmtSet struct {
	*snapshot.Set[*jvm.NMT]
}

func (s *NMT) loadNMTSet(r *http.Request, rep *store.Report) (*nmtSet, error) {
	ss, err := snapshot.LoadSet(s.jvm, r, rep, NMTPrefix, jvm.ParseNMTsWithin)
	if err != nil {
		return nil, err
	}
	return &nmtSet{ss}, nil
}

func (ns *nmtSet) header(title string) view.JVMHeader {
	kinds := make([]string, len(ns.Rep.Artifacts))
	times := make([]time.Time, len(ns.Rep.Artifacts))
	counts := make([]int, len(ns.Rep.Artifacts))
	for i, ref := range ns.Refs {
		counts[ref.File]++
		rk := "summary"
		if ns.Items[i].Diff {
			rk = "summary.diff"
		}
		kinds[ref.File] = "JVM native memory " + rk
		if t := ns.Items[i].Time; !t.IsZero() && times[ref.File].IsZero() {
			times[ref.File] = t
		}
	}
	return ns.Set.Header(title, func(i int) string {
		if counts[i] > 1 {
			return fmt.Sprintf("JVM native memory (%d reports)", counts[i])
		}
		return kinds[i]
	}, func(i int) time.Time { return times[i] })
}

// showJVMNMT renders /r/{id} for native memory reports.
func (s *NMT) showJVMNMT(w http.ResponseWriter, r *http.Request, rep *store.Report) error {
	ns, err := s.loadNMTSet(r, rep)
	if err != nil {
		return err
	}
	return snapshot.ShowPage(s.jvm, w, r, ns.Set, ns.nmtPage, ns.diffPage,
		func(p view.JVMNMTPage) view.JVMHeader { return p.Header }, view.JVMNMTPageView)
}

// nmtPage is the page model of one report, with its baseline diff when it is a
// summary.diff.
func (ns *nmtSet) nmtPage(i int) view.JVMNMTPage {
	n := ns.Items[i]
	pg := view.JVMNMTPage{Header: ns.header(ns.Name(i))}
	pg.Header.Meta = nmtMeta(n)
	pg.Header.Headline = n.Headline()
	pg.Header.Notices = n.Warnings
	pg.Figures = NMTFigures(n)
	if d := n.BaselineDiff(); d != nil {
		pg.Leak = NativeLeakView(d)
		pg.Changes = snapshot.NMTChanges(d)
		pg.Header.Alarm = d.NativeLeak != nil
	}
	pg.Chart = nmtChart(n, nil)
	pg.Categories, pg.HasChange = nmtRows(n), n.Diff
	pg.Snapshots = ns.snapshots()
	return pg
}

// diffPage is the page model of base → target.
func (ns *nmtSet) diffPage() view.JVMNMTPage {
	q := ns.Q
	base, target := ns.Items[q.Base], ns.Items[q.Target]
	d := jvm.DiffNMT(base, target)
	pg := view.JVMNMTPage{Header: ns.header(fmt.Sprintf("%s → %s", ns.Name(q.Base), ns.Name(q.Target)))}
	pg.Header.Meta = []view.Pair{{Label: "Base", Value: ns.Name(q.Base) + snapshot.TakenAt(base.Time)}, {Label: "Target", Value: ns.Name(q.Target) + snapshot.TakenAt(target.Time)}}
	if o := snapshot.OrderedBy(ns.Rep); o != "" {
		pg.Header.Meta = append(pg.Header.Meta, view.Pair{Label: "Ordered by", Value: o})
	}
	pg.Header.Headline, pg.Header.Alarm = d.Headline(), d.NativeLeak != nil
	pg.Header.Grew, pg.Header.Shrank = d.TotalCommittedDelta > 0, d.TotalCommittedDelta < 0
	pg.Header.Notices = append(pg.Header.Notices, d.Warnings...)
	for _, w := range base.Warnings {
		pg.Header.Notices = append(pg.Header.Notices, ns.Name(q.Base)+": "+w)
	}
	for _, w := range target.Warnings {
		pg.Header.Notices = append(pg.Header.Notices, ns.Name(q.Target)+": "+w)
	}
	pg.Figures = NMTDiffFigures(d)
	pg.Leak = NativeLeakView(d)
	pg.Changes = snapshot.NMTChanges(d)
	pg.Chart = nmtChart(target, base)
	pg.Categories = nmtRows(target)
	pg.Snapshots = ns.snapshots()
	return pg
}

// NMTDiffFigures are the big numbers of base → target: committed, Java heap,
// outside the heap, threads.
func NMTDiffFigures(d *jvm.NMTDiff) []view.JVMFigure {
	figs := []view.JVMFigure{
		{Label: fmt.Sprintf("committed: %s → %s", analyze.FormatBytes(d.BaseTotalCommitted), analyze.FormatBytes(d.TotalCommitted)),
			Value: analyze.FormatSignedValue(d.TotalCommittedDelta, "bytes"), Key: "change-committed", Grew: d.TotalCommittedDelta > 0, Shrank: d.TotalCommittedDelta < 0},
		{Label: fmt.Sprintf("Java heap: %s → %s", analyze.FormatBytes(d.BaseHeapCommitted), analyze.FormatBytes(d.HeapCommitted)),
			Value: analyze.FormatSignedValue(d.HeapCommittedDelta, "bytes"), Key: "change-heap", Grew: d.HeapCommittedDelta > 0, Shrank: d.HeapCommittedDelta < 0},
		{Label: fmt.Sprintf("outside the heap: %s → %s", analyze.FormatBytes(d.BaseNonHeapCommitted), analyze.FormatBytes(d.NonHeapCommitted)),
			Value: analyze.FormatSignedValue(d.NonHeapCommittedDelta, "bytes"), Key: "change-non-heap", Grew: d.NonHeapCommittedDelta > 0, Shrank: d.NonHeapCommittedDelta < 0},
	}
	if d.Threads > 0 || d.ThreadsDelta != 0 {
		figs = append(figs, view.JVMFigure{Label: fmt.Sprintf("threads (now %s)", analyze.FormatCount(d.Threads)),
			Value: analyze.FormatSignedValue(d.ThreadsDelta, "count"), Key: "change-threads", Grew: d.ThreadsDelta > 0, Shrank: d.ThreadsDelta < 0})
	}
	return figs
}

func (ns *nmtSet) snapshots() *view.JVMSnapshotTable {
	return snapshot.Table(ns.Rep, ns.Q, ns.Refs, "native memory reports", []string{"committed", "reserved", "Java heap"},
		func(i int) int { return ns.Items[i].Line },
		func(i int) time.Time { return ns.Items[i].Time },
		func(i int) []string {
			n := ns.Items[i]
			heap, _ := n.Category(jvm.HeapCategory)
			return []string{analyze.FormatBytes(n.TotalCommitted), analyze.FormatBytes(n.TotalReserved), analyze.FormatBytes(heap.Committed)}
		})
}

func nmtMeta(n *jvm.NMT) []view.Pair {
	rk := "summary"
	if n.Diff {
		rk = "summary.diff (amounts now, changes since the baseline)"
	}
	scale := n.Scale
	if scale == "" {
		scale = "bytes"
	}
	m := []view.Pair{{Label: "Report", Value: rk}, {Label: "Printed in", Value: scale}}
	if !n.Time.IsZero() {
		m = append(m, view.Pair{Label: "Taken", Value: page.FormatTime(n.Time)})
	}
	return m
}

func NMTFigures(n *jvm.NMT) []view.JVMFigure {
	heap, _ := n.Category(jvm.HeapCategory)
	figs := []view.JVMFigure{
		{Label: fmt.Sprintf("committed (%s bytes)", analyze.FormatCount(n.TotalCommitted)), Value: analyze.FormatBytes(n.TotalCommitted), Key: "total-committed"},
		{Label: fmt.Sprintf("reserved (%s bytes)", analyze.FormatCount(n.TotalReserved)), Value: analyze.FormatBytes(n.TotalReserved), Key: "total-reserved"},
		{Label: "Java heap committed", Value: analyze.FormatBytes(heap.Committed), Key: "heap-committed"},
		{Label: "committed outside the heap", Value: analyze.FormatBytes(n.TotalCommitted - heap.Committed), Key: "non-heap-committed"},
	}
	if t, ok := n.Category("Thread"); ok && t.Count > 0 {
		figs = append(figs, view.JVMFigure{Label: "threads", Value: analyze.FormatCount(t.Count), Key: "nmt-threads"})
	}
	return figs
}

func NativeLeakView(d *jvm.NMTDiff) *view.JVMNativeLeakView {
	if d.NativeLeak == nil {
		return nil
	}
	return &view.JVMNativeLeakView{Cause: d.NativeLeak.Cause, Message: d.NativeLeak.Message}
}

// nmtRows lists a report's categories by committed memory.
func nmtRows(n *jvm.NMT) []view.JVMNMTRow {
	var out []view.JVMNMTRow
	for _, c := range n.ByCommitted() {
		row := view.JVMNMTRow{Name: c.Name, Committed: analyze.FormatBytes(c.Committed), Reserved: analyze.FormatBytes(c.Reserved),
			Share: page.Share(c.Committed, n.TotalCommitted), CommittedValue: c.Committed}
		if n.Diff {
			row.Change, row.Grew = analyze.FormatSignedValue(c.CommittedDelta, "bytes"), c.CommittedDelta > 0
		}
		if c.Malloc != 0 {
			row.Malloc = analyze.FormatBytes(c.Malloc)
		}
		if c.MmapCommitted != 0 {
			row.Mmap = analyze.FormatBytes(c.MmapCommitted)
		}
		if c.Count != 0 {
			row.Count = analyze.FormatCount(c.Count)
		}
		out = append(out, row)
	}
	return out
}

// The chart's geometry in SVG units: a label column, then bars, then a value.
const (
	nmtChartWidth  = 1000
	nmtChartBarX   = 230
	nmtChartBarMax = 560
	nmtChartRow    = 28
)

// nmtChart draws the categories of n by committed memory, each over its reserved
// memory, and under each the base's committed memory when base is given (or the
// baseline's, for a summary.diff). The scale is the largest committed amount:
// reserved address space (16 GB for a heap that committed 1 GB) would flatten
// every other bar, so a reserved bar longer than the scale is cut at its end.
func nmtChart(n, base *jvm.NMT) view.JVMNMTChart {
	cats := n.ByCommitted()
	baseOf := func(c jvm.NMTCategory) (int64, bool) {
		if base != nil {
			b, _ := base.Category(c.Name)
			return b.Committed, true
		}
		if n.Diff {
			return c.Committed - c.CommittedDelta, true
		}
		return 0, false
	}
	var largest int64
	for _, c := range cats {
		b, _ := baseOf(c)
		largest = max(largest, c.Committed, b)
	}
	units := func(v int64) int64 {
		if v <= 0 || largest <= 0 {
			return 0
		}
		return max(1, min(v, largest)*nmtChartBarMax/largest)
	}
	width := func(v int64) string { return strconv.FormatInt(units(v), 10) }
	ch := view.JVMNMTChart{Width: nmtChartWidth, Height: len(cats)*nmtChartRow + 4,
		Legend: []view.Pair{{Label: "committed", Value: "#2457d6"}, {Label: "reserved (cut at the largest committed)", Value: "#dfe3ea"}}}
	for i, c := range cats {
		y := i*nmtChartRow + 4
		b, hasBase := baseOf(c)
		ch.Diff = ch.Diff || hasBase
		fill := "#2457d6"
		if hasBase && c.Committed > b && c.Name != jvm.HeapCategory {
			fill = "#c62828"
		}
		title := fmt.Sprintf("%s: committed %s of %s reserved", c.Name, analyze.FormatBytes(c.Committed), analyze.FormatBytes(c.Reserved))
		value := analyze.FormatBytes(c.Committed)
		switch {
		case hasBase:
			title += fmt.Sprintf("; before %s (%s)", analyze.FormatBytes(b), analyze.FormatSignedValue(c.Committed-b, "bytes"))
			value += " (" + analyze.FormatSignedValue(c.Committed-b, "bytes") + ")"
		case c.Reserved > c.Committed:
			value += " of " + analyze.FormatBytes(c.Reserved) + " reserved"
		}
		end := max(units(c.Reserved), units(c.Committed), units(b))
		ch.Bars = append(ch.Bars, view.JVMNMTBar{
			Name: c.Name, Y: strconv.Itoa(y), TextY: strconv.Itoa(y + 13), BaseY: strconv.Itoa(y + 18),
			ReservedW: width(c.Reserved), CommittedW: width(c.Committed), BaseW: width(b),
			ValueX: strconv.FormatInt(nmtChartBarX+end+6, 10), Value: value, Title: title, CommittedFill: fill,
		})
	}
	if ch.Diff {
		ch.Legend = append(ch.Legend, view.Pair{Label: "committed before", Value: "#5d6778"}, view.Pair{Label: "grew outside the heap", Value: "#c62828"})
	}
	return ch
}

// jvmNMTJSON is the JSON twin of one report: the shape of `leakui nmt -json`
// (amounts in bytes, the comparison with its baseline for a summary.diff, the
// native leak signature lifted to the top).
type jvmNMTJSON struct {
	Snapshot snapshot.JSON `json:"snapshot"`
	*jvm.NMT
	Headline   string          `json:"headline"`
	Comparison *jvm.NMTDiff    `json:"comparison"`
	NativeLeak *jvm.NativeLeak `json:"native_leak"`
}

// jvmNMTDiffJSON is the JSON twin of base → target.
type jvmNMTDiffJSON struct {
	Base       snapshot.JSON   `json:"base"`
	Target     snapshot.JSON   `json:"target"`
	BaseNMT    *jvm.NMT        `json:"base_nmt"`
	TargetNMT  *jvm.NMT        `json:"target_nmt"`
	Headline   string          `json:"headline"`
	Comparison *jvm.NMTDiff    `json:"comparison"`
	NativeLeak *jvm.NativeLeak `json:"native_leak"`
	Snapshots  []snapshot.JSON `json:"snapshots"`
}

// jvmNMTJSONOf fills doc.Analysis for native memory reports.
func (s *NMT) jvmNMTJSONOf(r *http.Request, rep *store.Report, doc *kind.ReportJSON) error {
	ns, err := s.loadNMTSet(r, rep)
	if err != nil {
		return err
	}
	if i, ok := ns.Single(); ok {
		n := ns.Items[i]
		out := jvmNMTJSON{Snapshot: snapshot.Of(rep, ns.Refs, i, n.Line, n.Time), NMT: n, Headline: n.Headline(), Comparison: n.BaselineDiff()}
		if out.Comparison != nil {
			out.NativeLeak = out.Comparison.NativeLeak
		}
		doc.Analysis = out
		return nil
	}
	q := ns.Q
	base, target := ns.Items[q.Base], ns.Items[q.Target]
	d := jvm.DiffNMT(base, target)
	out := jvmNMTDiffJSON{Base: snapshot.Of(rep, ns.Refs, q.Base, base.Line, base.Time), Target: snapshot.Of(rep, ns.Refs, q.Target, target.Line, target.Time),
		BaseNMT: base, TargetNMT: target, Headline: d.Headline(), Comparison: d, NativeLeak: d.NativeLeak}
	for i, n := range ns.Items {
		out.Snapshots = append(out.Snapshots, snapshot.Of(rep, ns.Refs, i, n.Line, n.Time))
	}
	doc.Analysis = out
	return nil
}

// jvmNMTMarkdown writes the ticket summary (web/markdown_jvm.go renders it).
func (s *NMT) jvmNMTMarkdown(w io.Writer, r *http.Request, rep *store.Report) error {
	ns, err := s.loadNMTSet(r, rep)
	if err != nil {
		return err
	}
	return ns.Markdown(w, r, func(n *jvm.NMT, _ int) string { return NMTMarkdown(n) }, func(w io.Writer, _ int) error {
		_, err := io.WriteString(w, NMTDiffMarkdown(jvm.DiffNMT(ns.Items[ns.Q.Base], ns.Items[ns.Q.Target])))
		return err
	})
}
