package heapdumps

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/hprof"
	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/internal/markdown"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/classhist"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/snapshot"
	"github.com/leakui/leakui/web/view"
)

// ReportDiff is the report kind of two or more JVM heap dumps compared by
// class.
const ReportDiff = "jvm-heapdump-diff"

// heapDumpSnapshot is what a comparison keeps of one dump: its totals, its first
// suspect, and its class histogram (instances, shallow and retained size): the
// first CompareClasses classes by retained size, ClassCount telling
// how many classes have instances in all.
type heapDumpSnapshot struct {
	Time       time.Time        `json:"time,omitzero"`
	Objects    int64            `json:"objects"`
	Shallow    int64            `json:"shallow"`
	Reachable  int64            `json:"reachable"`
	Headline   string           `json:"headline,omitempty"`
	Classes    []hprof.ClassRow `json:"classes"`
	ClassCount int              `json:"class_count,omitempty"`
}

// CompareClasses is how many classes of each dump's histogram a
// comparison keeps: a dump controls how many classes it has, and the summary
// is stored and shown to everyone who opens the report.
const CompareClasses = 5000

// ComparisonSummary is stored with a comparison of heap dumps: every dump's
// histogram, oldest first, so that showing the report never reads a dump again;
// and the dashboard's numbers, first → last.
type ComparisonSummary struct {
	Dumps            []heapDumpSnapshot `json:"dumps"`
	ShallowDelta     int64              `json:"shallow_delta"`
	ReachableDelta   int64              `json:"reachable_delta"`
	Suspect          string             `json:"suspect,omitempty"`
	SuspectInstances int64              `json:"suspect_instances,omitempty"`
	SeriesVerdict    string             `json:"series_verdict,omitempty"`
}

// planComparison stores two or more heap dumps as one comparison to be
// built in the background (Kind.AnalyzeStored: each dump analyzed in turn
// into its index, the comparison then built from the stored indexes); the
// dumps go oldest first by the time each header says it was written, read
// from the dumps' first bytes (else in upload order).
func (s *Kind) planComparison(form *kind.Upload) (*kind.Plan, error) {
	type dump struct {
		file int
		time time.Time
	}
	dumps := make([]dump, len(form.Files))
	timed := true
	for i, f := range form.Files {
		t, err := s.headerTime(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		dumps[i] = dump{i, t}
		timed = timed && !t.IsZero()
	}
	params := snapshot.Params{OrderedBy: "upload order"}
	if timed {
		params.OrderedBy = "heap dump time"
		sort.SliceStable(dumps, func(a, b int) bool { return dumps[a].time.Before(dumps[b].time) })
	}
	files := make([]*kind.Received, len(dumps))
	for i, d := range dumps {
		files[i] = form.Files[d.file]
		params.Snapshots = append(params.Snapshots, snapshot.Ref{File: i})
	}
	form.Files = files
	return &kind.Plan{Kind: ReportDiff, Params: params.AsMap(), Summary: Pending{Analyzing: true}, Background: true}, nil
}

// headerTime reads the time an uploaded dump's header gives, inflating the
// first bytes of a compressed one.
func (s *Kind) headerTime(f *kind.Received) (time.Time, error) {
	fh, err := os.Open(f.Path)
	if err != nil {
		return time.Time{}, err
	}
	defer fh.Close()
	rc, _, err := analyze.Decompress(fh, max(s.d.Limits.MaxDecompressed, s.d.Limits.MaxHeapDump))
	if err != nil {
		return time.Time{}, err
	}
	defer rc.Close()
	return hprof.HeaderTime(rc)
}

// DumpIndexName names the index of a comparison's i-th dump (0 for the
// oldest, in the order of the report's files) among its derived blobs.
func DumpIndexName(i int) string { return IndexName + "-" + strconv.Itoa(i) }

// snapshotOfIndex is what a comparison keeps of one dump, read from the
// dump's index (its totals and its class histogram with retained sizes) and
// headline, its first suspect's sentence.
func snapshotOfIndex(x *hprof.Index, headline string) (heapDumpSnapshot, error) {
	h, err := x.Histogram()
	if err != nil {
		return heapDumpSnapshot{}, err
	}
	sm := x.Summary()
	return heapDumpSnapshot{Time: sm.Time, Objects: sm.Objects, Shallow: sm.Shallow, Reachable: sm.Reachable, Headline: headline,
		Classes: h[:min(len(h), CompareClasses)], ClassCount: len(h)}, nil
}

// compareStored builds the summary of comparison rep from its dumps' stored
// indexes (DumpIndexName), never from the dumps; headlines are the dumps'
// first suspects' sentences, in the same order.
func (s *Kind) compareStored(ctx context.Context, rep *store.Report, headlines []string) (*ComparisonSummary, error) {
	dumps := make([]heapDumpSnapshot, len(rep.Artifacts))
	names := make([]string, len(rep.Artifacts))
	for i, a := range rep.Artifacts {
		b, err := s.d.Store.OpenDerived(ctx, rep.ID, DumpIndexName(i))
		if err != nil {
			return nil, fmt.Errorf("the stored index of %s: %w", a.Name, err)
		}
		x, err := hprof.OpenIndex(b, b.Size())
		if err == nil {
			dumps[i], err = snapshotOfIndex(x, headlines[i])
		}
		b.Close()
		if err != nil {
			return nil, fmt.Errorf("the stored index of %s: %w", a.Name, err)
		}
		names[i] = a.Name
	}
	return compareSnapshots(dumps, names)
}

// compareSnapshots is the summary of a comparison of dumps (oldest first,
// named names): the totals first → last, the first suspect of the
// histograms' diff, and with three or more the series' verdict.
func compareSnapshots(dumps []heapDumpSnapshot, names []string) (*ComparisonSummary, error) {
	sum := &ComparisonSummary{Dumps: dumps}
	first, last := dumps[0], dumps[len(dumps)-1]
	sum.ShallowDelta, sum.ReachableDelta = last.Shallow-first.Shallow, last.Reachable-first.Reachable
	hs := heapDumpHistograms(sum.Dumps, false)
	if sus := jvm.DiffHistograms(hs[0], hs[len(hs)-1]).Suspects(1); len(sus) > 0 {
		sum.Suspect, sum.SuspectInstances = sus[0].Name, sus[0].Instances
	}
	if len(hs) >= 3 {
		for _, o := range classhist.SeriesOrders {
			sr, err := classhist.SeriesOf(hs, names, o)
			if err != nil {
				return nil, err
			}
			if sum.SeriesVerdict == "" || sr.Verdict == series.Leak {
				sum.SeriesVerdict = string(sr.Verdict)
			}
		}
	}
	return sum, nil
}

// heapDumpHistograms turns the dumps' histograms into class histograms as jcmd
// prints them (its class names, shallow bytes; the retained sizes as the bytes when
// retained is set), so that the histograms' diff and series code compares them.
func heapDumpHistograms(dumps []heapDumpSnapshot, retained bool) []*jvm.Histogram {
	out := make([]*jvm.Histogram, len(dumps))
	for i, d := range dumps {
		h := &jvm.Histogram{Format: "JVM heap dump (HPROF)", Time: d.Time, HasTotal: true, Classes: make([]jvm.Class, len(d.Classes))}
		for k, c := range d.Classes {
			b := c.Shallow
			if retained {
				b = c.Retained
			}
			h.Classes[k] = jvm.Class{Name: hprof.HistogramClassName(c.Name), Instances: c.Instances, Bytes: b}
			h.RowInstances += c.Instances
			h.RowBytes += b
		}
		h.TotalInstances, h.TotalBytes = h.RowInstances, h.RowBytes
		if d.ClassCount > len(d.Classes) && !retained {
			h.TotalInstances, h.TotalBytes = d.Objects, d.Shallow // the classes left out count in the totals
		}
		out[i] = h
	}
	return out
}

// heapDumpsSummaryLine is the dashboard's line for a comparison of heap dumps.
func heapDumpsSummaryLine(raw json.RawMessage) string {
	var s ComparisonSummary
	if json.Unmarshal(raw, &s) != nil || len(s.Dumps) < 2 {
		return ""
	}
	line := fmt.Sprintf("%d heap dumps, reachable %s", len(s.Dumps), analyze.FormatSignedValue(s.ReachableDelta, "bytes"))
	if s.Suspect != "" {
		line += fmt.Sprintf("; suspect %s %s instances", page.CleanText(s.Suspect, 80), analyze.FormatSignedValue(s.SuspectInstances, "count"))
	}
	if s.SeriesVerdict != "" {
		line += "; series: " + series.Verdict(s.SeriesVerdict).Text()
	}
	return line
}

// heapDumpSet is a comparison of heap dumps loaded: their histograms as a
// histogram report's (shallow bytes), the same with retained sizes as bytes, and
// the stored summary.
type heapDumpSet struct {
	*classhist.Histograms
	retained []*jvm.Histogram
	sum      ComparisonSummary
}

// heapDumpsLoaded is a comparison's summary read and its histograms built, cached
// by report (a report's summary never changes).
type heapDumpsLoaded struct {
	sum             ComparisonSummary
	shallow, retain []*jvm.Histogram
}

func (s *Kind) loadHeapDumpSet(r *http.Request, rep *store.Report) (*heapDumpSet, error) {
	key := "heapdump-diff:" + rep.ID
	e, ok := s.jvmParsed.Get(key)
	l, _ := e.Value.(*heapDumpsLoaded)
	if !ok || l == nil {
		l = &heapDumpsLoaded{}
		if err := json.Unmarshal(rep.Summary, &l.sum); err != nil || len(l.sum.Dumps) != len(rep.Artifacts) || len(l.sum.Dumps) < 2 {
			return nil, fmt.Errorf("report %s: the stored heap dump comparison is unreadable (%d dumps, %d files): %v", rep.ID, len(l.sum.Dumps), len(rep.Artifacts), err)
		}
		l.shallow, l.retain = heapDumpHistograms(l.sum.Dumps, false), heapDumpHistograms(l.sum.Dumps, true)
		// The histograms are built from the summary: about twice its JSON.
		s.jvmParsed.Add(key, snapshot.Entry{Value: l, Cost: 2 * int64(len(rep.Summary))})
	}
	q, err := snapshot.ParseQuery(r, len(l.sum.Dumps))
	if err != nil {
		return nil, err
	}
	refs := make([]snapshot.Ref, len(l.sum.Dumps))
	for i := range refs {
		refs[i] = snapshot.Ref{File: i}
	}
	ss := &snapshot.Set[*jvm.Histogram]{Rep: rep, Items: l.shallow, Refs: refs, Q: q}
	return &heapDumpSet{Histograms: &classhist.Histograms{Set: ss, Cache: s.jvmParsed}, retained: l.retain, sum: l.sum}, nil
}

// retainedGrowth lists the classes whose retained size grew from the query's base
// to its target, most first, cut to the query's rows, and how many grew.
func (hd *heapDumpSet) retainedGrowth(rows int) ([]jvm.ClassChange, int) {
	d := jvm.DiffHistograms(hd.retained[hd.Q.Base], hd.retained[hd.Q.Target])
	all := 0
	for _, c := range d.Classes {
		if c.Bytes > 0 {
			all++
		}
	}
	return d.Grown(jvm.ByBytes, rows), all
}

// RetainedChange is one class whose retained size changed, in the JSON twin.
type RetainedChange struct {
	Name            string `json:"name"`
	BaseRetained    int64  `json:"base_retained"`
	TargetRetained  int64  `json:"target_retained"`
	Retained        int64  `json:"retained"`
	BaseInstances   int64  `json:"base_instances"`
	TargetInstances int64  `json:"target_instances"`
	Instances       int64  `json:"instances"`
}

func heapRetainedChanges(cs []jvm.ClassChange) []RetainedChange {
	out := make([]RetainedChange, len(cs))
	for i, c := range cs {
		out[i] = RetainedChange{Name: c.Name, BaseRetained: c.BaseBytes, TargetRetained: c.TargetBytes, Retained: c.Bytes,
			BaseInstances: c.BaseInstances, TargetInstances: c.TargetInstances, Instances: c.Instances}
	}
	return out
}

// heapDumpFigure is the reachable heap of each dump, base → target.
func (hd *heapDumpSet) reachableFigure() view.JVMFigure {
	b, t := hd.sum.Dumps[hd.Q.Base].Reachable, hd.sum.Dumps[hd.Q.Target].Reachable
	return view.JVMFigure{Label: fmt.Sprintf("reachable: %s → %s", analyze.FormatBytes(b), analyze.FormatBytes(t)),
		Value: analyze.FormatSignedValue(t-b, "bytes"), Key: "change-reachable", Grew: t > b, Shrank: t < b}
}

// heapDumpHeader renames what a histogram page's header says of its files.
func heapDumpHeader(h *view.JVMHeader, title string) {
	h.Title = title
	for i := range h.Files {
		h.Files[i].Kind = "JVM heap dump"
	}
}

// showComparison renders /r/{id} for a comparison of heap dumps: one dump's
// histogram when the query selects one, else the comparison of base and target.
func (s *Kind) showComparison(w http.ResponseWriter, r *http.Request, rep *store.Report) error {
	hd, err := s.loadHeapDumpSet(r, rep)
	if err != nil {
		return err
	}
	if i, ok := hd.Single(); ok {
		pg := hd.Page(i)
		heapDumpHeader(&pg.Header, "JVM heap dump "+hd.Name(i))
		pg.Header.Meta = []view.Pair{{Label: "Taken", Value: page.FormatTime(hd.sum.Dumps[i].Time)}}
		pg.Figures = append(pg.Figures, view.JVMFigure{Label: "reachable", Value: analyze.FormatBytes(hd.sum.Dumps[i].Reachable), Key: "reachable"})
		pg.TotalCheck, pg.TotalOK = "", true
		if hd.sum.Dumps[i].Headline != "" {
			pg.Header.Headline = strings.ReplaceAll(hd.sum.Dumps[i].Headline, "`", "")
		}
		return s.d.Render(w, r, http.StatusOK, view.Page{Title: pg.Header.Title, Nav: "reports", Description: pg.Header.Headline}, view.JVMHistogramPageView(pg))
	}
	diff := hd.DiffPage()
	heapDumpHeader(&diff.Header, fmt.Sprintf("JVM heap dumps %s → %s", hd.Name(hd.Q.Base), hd.Name(hd.Q.Target)))
	diff.Figures = append(diff.Figures, hd.reachableFigure())
	diff.Suspects.Note = "Classes outside the JDK whose instance count grew, most new instances first, counted in the dumps as GC.class_histogram counts them."
	if t := diff.Snapshots; t != nil {
		t.What = "heap dumps"
		t.Totals = append(t.Totals, "reachable")
		for i := range t.Rows {
			t.Rows[i].Values = append(t.Rows[i].Values, analyze.FormatBytes(hd.sum.Dumps[i].Reachable))
		}
	}
	pg := view.HeapDumpComparePage{Diff: diff}
	grown, all := hd.retainedGrowth(hd.Q.Rows)
	pg.Retained = view.HeapRetainedTable{All: all}
	if len(grown) < all {
		pg.Retained.ShowAll = hd.Q.ShowAll(page.ReportURL(rep.ID))
	}
	var largest int64
	if len(grown) > 0 {
		largest = grown[0].Bytes
	}
	for i, c := range grown {
		row := view.HeapRetainedRow{Rank: i + 1, Name: c.Name, Base: analyze.FormatBytes(c.BaseBytes), Target: analyze.FormatBytes(c.TargetBytes),
			Change: analyze.FormatSignedValue(c.Bytes, "bytes"), InstancesChange: analyze.FormatSignedValue(c.Instances, "count"),
			ChangeValue: c.Bytes, InstancesValue: c.Instances, BaseValue: c.BaseBytes, BarPct: page.BarPct(c.Bytes, largest)}
		if d := jvm.ClassDisplayName(c.Name); d != c.Name {
			row.Display = d
		}
		pg.Retained.Rows = append(pg.Retained.Rows, row)
	}
	return s.d.Render(w, r, http.StatusOK, view.Page{Title: diff.Header.Title, Nav: "reports", Description: diff.Header.Headline}, view.HeapDumpComparePageView(pg))
}

// heapDumpsJSON is the JSON twin of a comparison of heap dumps: the histogram
// diff's (classes by instances and shallow bytes, the series of three or more) with
// the classes whose retained size grew and each dump's totals.
type heapDumpsJSON struct {
	classhist.DiffJSON
	GrownRetained []RetainedChange `json:"grown_retained"`
	Dumps         []Brief          `json:"dumps"`
}

// Brief is one dump's totals in the JSON twin.
type Brief struct {
	Name      string    `json:"name"`
	Time      time.Time `json:"time,omitzero"`
	Objects   int64     `json:"objects"`
	Shallow   int64     `json:"shallow"`
	Reachable int64     `json:"reachable"`
	Headline  string    `json:"headline,omitempty"`
}

// comparisonJSON fills doc.Analysis for a comparison of heap dumps (one dump's
// histogram, as a histogram report's, when the query selects one).
func (s *Kind) comparisonJSON(r *http.Request, rep *store.Report, doc *kind.ReportJSON) error {
	hd, err := s.loadHeapDumpSet(r, rep)
	if err != nil {
		return err
	}
	a, err := hd.AnalysisJSON()
	if err != nil {
		return err
	}
	d, ok := a.(classhist.DiffJSON)
	if !ok {
		doc.Analysis = a
		return nil
	}
	grown, _ := hd.retainedGrowth(hd.Q.Rows)
	out := heapDumpsJSON{DiffJSON: d, GrownRetained: heapRetainedChanges(grown)}
	for i, dump := range hd.sum.Dumps {
		out.Dumps = append(out.Dumps, Brief{Name: hd.Name(i), Time: dump.Time, Objects: dump.Objects, Shallow: dump.Shallow,
			Reachable: dump.Reachable, Headline: dump.Headline})
	}
	doc.Analysis = out
	return nil
}

// comparisonMarkdown writes the ticket summary of a comparison: the histogram
// diff's Markdown, the classes whose retained size grew, the series.
func (s *Kind) comparisonMarkdown(w io.Writer, r *http.Request, rep *store.Report) error {
	hd, err := s.loadHeapDumpSet(r, rep)
	if err != nil {
		return err
	}
	return hd.Markdown(w, r, classhist.Markdown, func(w io.Writer, rows int) error {
		b, t := hd.sum.Dumps[hd.Q.Base], hd.sum.Dumps[hd.Q.Target]
		fmt.Fprintf(w, "Reachable from the GC roots: %s → %s (%s).\n\n", analyze.FormatBytes(b.Reachable), analyze.FormatBytes(t.Reachable),
			analyze.FormatSignedValue(t.Reachable-b.Reachable, "bytes"))
		if _, err := io.WriteString(w, classhist.DiffMarkdown(hd.Diff(), rows)); err != nil {
			return err
		}
		if grown, _ := hd.retainedGrowth(rows); len(grown) > 0 {
			var m strings.Builder
			m.WriteString("\n" + markdown.Heading(4, "Growth in retained size"))
			m.WriteString(markdown.TableHead(markdown.Left("class"), markdown.Right("retained"), markdown.Right("change"), markdown.Right("instances change")))
			for _, c := range grown {
				m.WriteString(markdown.Row(jvm.ClassLabel(c.Name, markdown.Code), analyze.FormatBytes(c.TargetBytes),
					analyze.FormatSignedValue(c.Bytes, "bytes"), analyze.FormatSignedValue(c.Instances, "count")))
			}
			if _, err := io.WriteString(w, m.String()); err != nil {
				return err
			}
		}
		return hd.SeriesMarkdown(w, rows)
	})
}

// SummaryLine is the dashboard's line for either kind of heap dump
// report, told apart by the summary's shape.
func SummaryLine(raw json.RawMessage, failed func(reason string) (code int, msg string)) string {
	if line := heapDumpsSummaryLine(raw); line != "" {
		return line
	}
	return heapDumpSummaryLine(raw, failed)
}
