package jvm

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/classhist"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/snapshot"
	"github.com/leakui/leakui/web/view"
)

// threadsPrefix keys analyzed thread dump files in the cache.
const threadsPrefix = "jvm-threads"

// parseJavaThreadReports analyzes one thread dump file: the groups of its last
// dump, what changed since its first, the histograms printed with it. It is one
// snapshot, for planSnapshots and loadSnapshots.
func parseJavaThreadReports(r io.Reader, b *analyze.Budget) ([]*jvm.ThreadReport, error) {
	rep, err := jvm.AnalyzeThreadsWithin(r, b)
	if err != nil {
		return nil, err
	}
	return []*jvm.ThreadReport{rep}, nil
}

// jvmThreadsSummary is stored with a thread dump report for the dashboard's list.
type jvmThreadsSummary struct {
	Files        int    `json:"files"`
	Dumps        int    `json:"dumps"`
	Threads      int    `json:"threads"`
	Daemon       int    `json:"daemon"`
	Groups       int    `json:"groups"`
	Deadlocks    int    `json:"deadlocks"`
	BaseThreads  int    `json:"base_threads,omitempty"`
	TopName      string `json:"top_name,omitempty"`
	TopNameDelta int    `json:"top_name_delta,omitempty"`
}

// planJVMThreads makes a thread dump report of one file and a diff of two or more
// (the last dump of each file, oldest first).
func (s *Threads) planJVMThreads(form *kind.Upload) (*kind.Plan, error) {
	reps, params, err := snapshot.Plan(s.jvm, form, threadsPrefix, "dump time", parseJavaThreadReports,
		func(r *jvm.ThreadReport) time.Time { return r.Groups.Time })
	if err != nil {
		return nil, err
	}
	last := reps[len(reps)-1]
	g := last.Groups
	sum := jvmThreadsSummary{Files: len(reps), Dumps: last.Dumps, Threads: g.Total, Daemon: g.Daemon, Groups: len(g.Groups), Deadlocks: len(g.Deadlocks)}
	rk := kindJVMThreads
	var d *jvm.ThreadDiff
	switch {
	case len(reps) > 1:
		rk = kindJVMThreadsDiff
		d = jvm.DiffThreads(reps[0].Groups, g)
	case last.Diff != nil:
		d = last.Diff
	}
	if d != nil {
		sum.BaseThreads = d.BaseTotal
		if len(d.Names) > 0 && d.Names[0].Delta > 0 {
			sum.TopName, sum.TopNameDelta = d.Names[0].Pattern, d.Names[0].Delta
		}
	}
	return &kind.Plan{Kind: rk, Params: params.AsMap(), Summary: sum}, nil
}

// jvmThreadsSummaryLine is the dashboard's line for a thread dump report.
func jvmThreadsSummaryLine(raw json.RawMessage) string {
	var s jvmThreadsSummary
	if json.Unmarshal(raw, &s) != nil || s.Files == 0 {
		return ""
	}
	line := analyze.Plural(int64(s.Threads), "thread") + " in " + analyze.Plural(int64(s.Groups), "group")
	if s.Files > 1 || s.Dumps > 1 {
		line = fmt.Sprintf("threads %s → %s (%s)", analyze.FormatCount(int64(s.BaseThreads)), analyze.FormatCount(int64(s.Threads)), analyze.FormatSignedValue(int64(s.Threads-s.BaseThreads), "count"))
	}
	if s.Deadlocks > 0 {
		line += fmt.Sprintf(", %d %s", s.Deadlocks, page.OneOrMany(s.Deadlocks, "deadlock", "deadlocks"))
	}
	if s.TopName != "" {
		line += fmt.Sprintf("; %s %s", page.CleanText(s.TopName, 80), analyze.FormatSignedValue(int64(s.TopNameDelta), "count"))
	}
	return line
}

// threadSet is a thread dump report loaded: one analyzed file per snapshot, oldest
// first, and the query that selects a view.
type threadSet struct {
	*snapshot.Set[*jvm.ThreadReport]
}

func (s *Threads) loadThreadSet(r *http.Request, rep *store.Report) (*threadSet, error) {
	ss, err := snapshot.LoadSet(s.jvm, r, rep, threadsPrefix, parseJavaThreadReports)
	if err != nil {
		return nil, err
	}
	return &threadSet{ss}, nil
}

func (ts *threadSet) header(title string) view.JVMHeader {
	file := make([]*jvm.ThreadReport, len(ts.Rep.Artifacts))
	for i, ref := range ts.Refs {
		file[ref.File] = ts.Items[i]
	}
	return ts.Set.Header(title, func(i int) string {
		r := file[i]
		if r == nil {
			return "JVM thread dump"
		}
		if r.Dumps > 1 {
			return fmt.Sprintf("JVM thread dump (%s, %s in the last)", analyze.Plural(int64(r.Dumps), "dump"), analyze.Plural(int64(r.Groups.Total), "thread"))
		}
		return fmt.Sprintf("JVM thread dump (%s)", analyze.Plural(int64(r.Groups.Total), "thread"))
	}, func(i int) time.Time {
		if file[i] == nil {
			return time.Time{}
		}
		return file[i].Groups.Time
	})
}

// showJVMThreads renders /r/{id} for thread dump reports.
func (s *Threads) showJVMThreads(w http.ResponseWriter, r *http.Request, rep *store.Report) error {
	ts, err := s.loadThreadSet(r, rep)
	if err != nil {
		return err
	}
	return snapshot.ShowPage(s.jvm, w, r, ts.Set, ts.threadsPage, ts.diffPage,
		func(p view.JVMThreadsPage) view.JVMHeader { return p.Header }, view.JVMThreadsPageView)
}

// threadsPage is the page model of one file's dump (its last), with what changed
// since its first dump when it holds several.
func (ts *threadSet) threadsPage(i int) view.JVMThreadsPage {
	rep, q := ts.Items[i], ts.Q
	g := rep.Groups
	pg := view.JVMThreadsPage{Header: ts.header(ts.Name(i))}
	pg.Header.Meta = jvmDumpMeta(g)
	if rep.Dumps > 1 {
		pg.Header.Meta = append(pg.Header.Meta, view.Pair{Label: "Dumps in the file",
			Value: fmt.Sprintf("%d; the groups are those of the last, compared with the first", rep.Dumps)})
	}
	pg.Header.Headline, pg.Header.Alarm = jvmThreadsHeadline(g)
	pg.Header.Notices = rep.Warnings
	if rep.Diff != nil {
		pg.Diff = jvmThreadDiffView(rep.Diff, "dump 1", fmt.Sprintf("dump %d", rep.Dumps), q.Rows, q.ShowAll(page.ReportURL(ts.Rep.ID)))
		pg.Header.Alarm = pg.Header.Alarm || rep.Diff.TargetTotal > rep.Diff.BaseTotal
	}
	ts.fillDump(&pg, g, rep.Histograms)
	return pg
}

// diffPage is the page model of the change between two files' dumps.
func (ts *threadSet) diffPage() view.JVMThreadsPage {
	q := ts.Q
	base, target := ts.Items[q.Base], ts.Items[q.Target]
	d := jvm.DiffThreads(base.Groups, target.Groups)
	pg := view.JVMThreadsPage{Header: ts.header(fmt.Sprintf("%s → %s", ts.Name(q.Base), ts.Name(q.Target)))}
	pg.Header.Meta = append([]view.Pair{{Label: "Base", Value: ts.Name(q.Base) + snapshot.TakenAt(base.Groups.Time)},
		{Label: "Target", Value: ts.Name(q.Target) + snapshot.TakenAt(target.Groups.Time)}}, jvmDumpMeta(target.Groups)...)
	if o := snapshot.OrderedBy(ts.Rep); o != "" {
		pg.Header.Meta = append(pg.Header.Meta, view.Pair{Label: "Ordered by", Value: o})
	}
	headline, alarm := jvmThreadsHeadline(target.Groups)
	pg.Header.Headline = jvmThreadDiffHeadline(d) + " " + headline
	pg.Header.Alarm = alarm || d.TargetTotal > d.BaseTotal
	pg.Header.Notices = append(pg.Header.Notices, d.Warnings...)
	for _, w := range base.Warnings {
		pg.Header.Notices = append(pg.Header.Notices, ts.Name(q.Base)+": "+w)
	}
	for _, w := range target.Warnings {
		pg.Header.Notices = append(pg.Header.Notices, ts.Name(q.Target)+": "+w)
	}
	pg.Diff = jvmThreadDiffView(d, ts.Name(q.Base), ts.Name(q.Target), q.Rows, q.ShowAll(page.ReportURL(ts.Rep.ID)))
	ts.fillDump(&pg, target.Groups, target.Histograms)
	pg.Snapshots = snapshot.Table(ts.Rep, q, ts.Refs, "thread dumps", []string{"dumps", "threads", "groups"},
		func(int) int { return 0 },
		func(i int) time.Time { return ts.Items[i].Groups.Time },
		func(i int) []string {
			g := ts.Items[i].Groups
			return []string{fmt.Sprint(ts.Items[i].Dumps), analyze.FormatCount(int64(g.Total)), analyze.FormatCount(int64(len(g.Groups)))}
		})
	return pg
}

// fillDump fills the figures, deadlocks, states, names, groups and histograms of
// the dump shown.
func (ts *threadSet) fillDump(pg *view.JVMThreadsPage, g *jvm.ThreadGroups, histograms []*jvm.Histogram) {
	q := ts.Q
	path := page.ReportURL(ts.Rep.ID)
	pg.Figures = []view.JVMFigure{
		{Label: "threads", Value: analyze.FormatCount(int64(g.Total)), Key: "total-threads"},
		{Label: "daemon", Value: analyze.FormatCount(int64(g.Daemon)), Key: "daemon-threads"},
		{Label: "groups", Value: analyze.FormatCount(int64(len(g.Groups))), Key: "thread-groups"},
		{Label: "deadlocks reported by the JVM", Value: fmt.Sprint(len(g.Deadlocks)), Key: "deadlocks", Grew: len(g.Deadlocks) > 0},
	}
	for _, dl := range g.Deadlocks {
		v := view.JVMDeadlockView{}
		for _, t := range dl.Threads {
			v.Threads = append(v.Threads, view.JVMDeadlockThreadView{Name: t.Name, Waiting: t.Waiting, HeldBy: t.HeldBy})
		}
		pg.Deadlocks = append(pg.Deadlocks, v)
	}
	var most int
	for _, st := range g.States {
		most = max(most, st.Count)
	}
	for _, st := range g.States {
		pg.States = append(pg.States, view.JVMBar{Label: st.State, Count: analyze.FormatCount(int64(st.Count)), Value: st.Count, BarPct: page.BarPct(int64(st.Count), int64(most))})
	}
	names := snapshot.First(g.Names, q.Rows)
	pg.NamesAll = len(g.Names)
	for _, n := range names {
		pg.Names = append(pg.Names, view.JVMBar{Label: n.Pattern, Count: analyze.FormatCount(int64(n.Count)), Value: n.Count,
			BarPct: page.BarPct(int64(n.Count), int64(names[0].Count))})
	}
	gs := snapshot.First(g.Groups, q.Rows)
	pg.All, pg.Count = len(g.Groups), len(gs)
	if len(gs) < len(g.Groups) {
		pg.ShowAll = q.ShowAll(path)
	}
	pg.Groups = make([]view.JVMThreadGroupView, len(gs))
	for i, grp := range gs {
		pg.Groups[i] = jvmGroupView(grp, "")
	}
	for _, h := range histograms {
		ok := h.HasTotal && h.TotalInstances == h.RowInstances && h.TotalBytes == h.RowBytes
		check, _ := classhist.TotalCheck(h)
		pg.Histograms = append(pg.Histograms, view.JVMEmbeddedHistogram{
			Title:    fmt.Sprintf("Class histogram at line %d", h.Line),
			Headline: classhist.Headline(h), TotalCheck: check, TotalOK: ok,
			Table: classhist.ClassTable(h, q.Order, q.Rows, q.ShowAll(path)),
		})
	}
}

// jvmDumpMeta describes a dump: the JVM and when it was taken.
func jvmDumpMeta(g *jvm.ThreadGroups) []view.Pair {
	var m []view.Pair
	if g.Header != "" {
		m = append(m, view.Pair{Label: "JVM", Value: g.Header})
	}
	if !g.Time.IsZero() {
		m = append(m, view.Pair{Label: "Taken", Value: page.FormatTime(g.Time)})
	}
	return m
}

// jvmThreadsHeadline says in plain text what a dump shows: deadlocks first, then the
// threads and the largest group.
func jvmThreadsHeadline(g *jvm.ThreadGroups) (string, bool) {
	var b strings.Builder
	if n := len(g.Deadlocks); n > 0 {
		fmt.Fprintf(&b, "The JVM reported %d %s:", n, page.OneOrMany(n, "deadlock", "deadlocks"))
		for i, t := range g.Deadlocks[0].Threads {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %q waits", t.Name)
			if t.HeldBy != "" {
				fmt.Fprintf(&b, " for %q", t.HeldBy)
			}
		}
		b.WriteString(". ")
	}
	fmt.Fprintf(&b, "%s (%s daemon) in %s.", analyze.Plural(int64(g.Total), "thread"), analyze.FormatCount(int64(g.Daemon)), analyze.Plural(int64(len(g.Groups)), "group"))
	for _, grp := range g.Groups {
		if grp.Deadlocked {
			continue
		}
		fmt.Fprintf(&b, " Largest group: %s %s %s.", analyze.Plural(int64(grp.Count), "thread"), grp.State, jvmTopFrame(grp.Stack))
		break
	}
	return b.String(), len(g.Deadlocks) > 0
}

// jvmThreadDiffHeadline says in plain text how the number of threads changed and which
// name multiplied most.
func jvmThreadDiffHeadline(d *jvm.ThreadDiff) string {
	s := fmt.Sprintf("Threads: %s → %s (%s).", analyze.FormatCount(int64(d.BaseTotal)), analyze.FormatCount(int64(d.TargetTotal)), analyze.FormatSignedValue(int64(d.TargetTotal-d.BaseTotal), "count"))
	if len(d.Names) > 0 && d.Names[0].Delta > 0 {
		n := d.Names[0]
		s += fmt.Sprintf(" Most new threads are named %q: %s → %s.", n.Pattern, analyze.FormatCount(int64(n.Base)), analyze.FormatCount(int64(n.Target)))
	}
	return s
}

func jvmTopFrame(stack []string) string {
	if len(stack) == 0 {
		return "with no Java frames"
	}
	return "at " + stack[0]
}

// jvmGroupView formats one thread group.
func jvmGroupView(g jvm.ThreadGroup, change string) view.JVMThreadGroupView {
	v := view.JVMThreadGroupView{Count: g.Count, Change: change, State: g.State, Deadlocked: g.Deadlocked, TopFrame: jvmTopFrame(g.Stack), Stack: g.Stack}
	switch {
	case g.Count > 0 && g.Daemon == g.Count:
		v.Daemon = "daemon"
	case g.Daemon == 0:
		v.Daemon = "no"
	default:
		v.Daemon = fmt.Sprintf("%d of %d", g.Daemon, g.Count)
	}
	for _, n := range g.Names {
		v.Names = append(v.Names, view.Pair{Label: n.Pattern, Value: analyze.FormatCount(int64(n.Count))})
	}
	for _, l := range g.Locks {
		s := l.Kind
		if l.Class != "" {
			s += " " + l.Class
		}
		if l.Frame >= 0 {
			s += fmt.Sprintf(" (frame %d)", l.Frame+1)
		}
		if l.Objects > 1 {
			s += fmt.Sprintf(", %d objects", l.Objects)
		}
		if len(l.HeldBy) > 0 {
			s += ", held by " + strings.Join(jvmQuoteAll(l.HeldBy), ", ")
		}
		v.Locks = append(v.Locks, s)
	}
	return v
}

func jvmQuoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}

// jvmThreadDiffView formats a dump diff, rows groups per list (all when 0).
func jvmThreadDiffView(d *jvm.ThreadDiff, baseName, targetName string, rows int, showAll string) *view.JVMThreadDiffView {
	v := &view.JVMThreadDiffView{
		Headline: jvmThreadDiffHeadline(d), BaseName: baseName, TargetName: targetName,
		BaseTotal: analyze.FormatCount(int64(d.BaseTotal)), TargetTotal: analyze.FormatCount(int64(d.TargetTotal)),
		Change: analyze.FormatSignedValue(int64(d.TargetTotal-d.BaseTotal), "count"), Grew: d.TargetTotal > d.BaseTotal,
		NewAll: len(d.New), GrownAll: len(d.Grown), ShrunkAll: len(d.Shrunk),
	}
	cut := false
	list := func(cs []jvm.ThreadGroupChange) []view.JVMThreadGroupView {
		shown := snapshot.First(cs, rows)
		cut = cut || len(shown) < len(cs)
		out := make([]view.JVMThreadGroupView, len(shown))
		for i, c := range shown {
			out[i] = jvmGroupView(c.ThreadGroup, fmt.Sprintf("%s, was %d", analyze.FormatSignedValue(int64(c.Delta), "count"), c.BaseCount))
		}
		return out
	}
	v.New, v.Grown, v.Shrunk = list(d.New), list(d.Grown), list(d.Shrunk)
	names := snapshot.First(d.Names, rows)
	cut = cut || len(names) < len(d.Names)
	var most int
	for _, n := range names {
		most = max(most, jvmAbs(n.Delta))
	}
	for _, n := range names {
		v.Names = append(v.Names, view.JVMBar{Label: n.Pattern, Count: fmt.Sprintf("%s → %s", analyze.FormatCount(int64(n.Base)), analyze.FormatCount(int64(n.Target))),
			Value: n.Target, Change: analyze.FormatSignedValue(int64(n.Delta), "count"), Grew: n.Delta > 0, BarPct: page.BarPct(int64(jvmAbs(n.Delta)), int64(most))})
	}
	if cut {
		v.ShowAll = showAll
	}
	return v
}

func jvmAbs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// jvmThreadsJSON is the JSON twin of one dump: the shape of `leakui threads -json`
// (total, groups [{count, state, stack}] cut to n) with the change since the
// file's first dump and the histograms printed with it.
type jvmThreadsJSON struct {
	Snapshot snapshot.JSON `json:"snapshot"`
	*jvm.ThreadGroups
	GroupCount int              `json:"group_count"`
	Dumps      int              `json:"dumps"`
	Headline   string           `json:"headline"`
	Diff       *jvm.ThreadDiff  `json:"diff,omitempty"`
	Histograms []*jvm.Histogram `json:"histograms,omitempty"`
	Warnings   []string         `json:"warnings,omitempty"`
}

// jvmThreadsDiffJSON is the JSON twin of a diff of two files' dumps: the diff
// (new, grown, shrunk, names, cut to n) and the target dump as jvmThreadsJSON.
type jvmThreadsDiffJSON struct {
	Base   snapshot.JSON `json:"base"`
	Target snapshot.JSON `json:"target"`
	*jvm.ThreadDiff
	Headline   string          `json:"headline"`
	TargetDump jvmThreadsJSON  `json:"target_dump"`
	Snapshots  []snapshot.JSON `json:"snapshots"`
}

// jvmThreadsJSONOf fills doc.Analysis for thread dump reports.
func (s *Threads) jvmThreadsJSONOf(r *http.Request, rep *store.Report, doc *kind.ReportJSON) error {
	ts, err := s.loadThreadSet(r, rep)
	if err != nil {
		return err
	}
	q := ts.Q
	if i, ok := ts.Single(); ok {
		doc.Analysis = ts.dumpJSON(i)
		return nil
	}
	base, target := ts.Items[q.Base], ts.Items[q.Target]
	d := jvmCutThreadDiff(jvm.DiffThreads(base.Groups, target.Groups), q.Rows)
	out := jvmThreadsDiffJSON{
		Base: snapshot.Of(rep, ts.Refs, q.Base, 0, base.Groups.Time), Target: snapshot.Of(rep, ts.Refs, q.Target, 0, target.Groups.Time),
		ThreadDiff: d, Headline: d.Headline(), TargetDump: ts.dumpJSON(q.Target),
	}
	for i, r := range ts.Items {
		out.Snapshots = append(out.Snapshots, snapshot.Of(rep, ts.Refs, i, 0, r.Groups.Time))
	}
	doc.Analysis = out
	return nil
}

// dumpJSON is the JSON of file i's (last) dump, every list cut to the query's n.
func (ts *threadSet) dumpJSON(i int) jvmThreadsJSON {
	rep, q := ts.Items[i], ts.Q
	g := *rep.Groups
	g.Groups, g.Names = snapshot.First(g.Groups, q.Rows), snapshot.First(g.Names, q.Rows)
	out := jvmThreadsJSON{Snapshot: snapshot.Of(ts.Rep, ts.Refs, i, 0, rep.Groups.Time), ThreadGroups: &g,
		GroupCount: len(rep.Groups.Groups), Dumps: rep.Dumps, Headline: rep.Groups.Headline(), Warnings: rep.Warnings}
	if rep.Diff != nil {
		out.Diff = jvmCutThreadDiff(rep.Diff, q.Rows)
	}
	for _, h := range rep.Histograms {
		shown := *h
		shown.Classes = snapshot.First(h.Ranked(q.Order), q.Rows)
		out.Histograms = append(out.Histograms, &shown)
	}
	return out
}

// jvmCutThreadDiff returns a copy of d with every list cut to rows (all when 0).
func jvmCutThreadDiff(d *jvm.ThreadDiff, rows int) *jvm.ThreadDiff {
	c := *d
	c.New, c.Grown, c.Shrunk, c.Names = snapshot.First(d.New, rows), snapshot.First(d.Grown, rows), snapshot.First(d.Shrunk, rows), snapshot.First(d.Names, rows)
	return &c
}

// jvmThreadsMarkdown writes the ticket summary (web/markdown_jvm.go renders it).
func (s *Threads) jvmThreadsMarkdown(w io.Writer, r *http.Request, rep *store.Report) error {
	ts, err := s.loadThreadSet(r, rep)
	if err != nil {
		return err
	}
	return ts.Markdown(w, r, ThreadReportMarkdown, func(w io.Writer, rows int) error {
		q := ts.Q
		d := jvm.DiffThreads(ts.Items[q.Base].Groups, ts.Items[q.Target].Groups)
		_, err := io.WriteString(w, ThreadDiffMarkdown(d, rows)+"\n"+ThreadGroupsMarkdown(ts.Items[q.Target].Groups, rows))
		return err
	})
}
