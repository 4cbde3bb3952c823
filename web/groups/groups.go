package groups

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/leakui/leakui/analyze/goroutines"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/view"
)

// The views of a report over goroutine dumps.
const (
	ModeDump = "dump" // one dump's groups
	ModeDiff = "diff" // base → target
)

// Title picks a stack's most telling function for a headline: the
// first frame of code outside the standard library (a module path has a dot in
// its first element, and main is the program), else the first frame outside the
// runtime's wait machinery, else the innermost frame.
func Title(st *goroutines.Stack) string {
	if st == nil || len(st.Frames) == 0 {
		return ""
	}
	for _, f := range st.Frames {
		if !f.Elided && !isStdlibFunc(f.Func) {
			return f.Func
		}
	}
	for _, f := range st.Frames {
		if !f.Elided && !isWaitMachinery(f.Func) {
			return f.Func
		}
	}
	return st.Frames[0].Func
}

// isStdlibFunc reports a function of the standard library: package main is the
// program's, and a package path whose first element has a dot (github.com/…,
// golang.org/x/…) is a module's.
func isStdlibFunc(name string) bool {
	if strings.HasPrefix(name, "main.") {
		return false
	}
	first, _, nested := strings.Cut(name, "/")
	return !nested || !strings.Contains(first, ".")
}

// isWaitMachinery reports the runtime, sync, syscall and poller frames a blocked
// goroutine sits in.
func isWaitMachinery(name string) bool {
	for _, p := range []string{"runtime.", "runtime/internal/", "internal/", "sync.", "sync/atomic.", "syscall.", "time.Sleep"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return name == "panic"
}

// View formats a report's first rows groups (all when rows is 0);
// names are the base's and the target's file names, for a comparison.
func View(rep *goroutines.Report, rows int, showAll string, names [2]string) view.GoroutineGroups {
	g := view.GoroutineGroups{Total: rep.Total, Format: rep.Format, Declared: -1, Truncated: rep.Truncated,
		IgnoredLines: rep.IgnoredLines, All: len(rep.Groups)}
	if rep.DeclaredTotal != nil {
		g.Declared = *rep.DeclaredTotal
	}
	g.ProvenLeaked, g.Leaked, g.LeakHint = rep.ProvenLeaked, rep.Leaked, rep.LeakProofHint
	if p := rep.Panic; p != nil {
		g.Panic = &view.GoroutinePanic{Kind: p.Kind, Message: p.Message, Signal: p.Signal, Goroutine: p.Goroutine}
	}
	if b := rep.Base; b != nil {
		gb := &view.GoroutineBase{BaseName: names[0], TargetName: names[1], BaseTotal: b.Total,
			Change: page.SignedCount(rep.Total - b.Total), Grew: rep.Total > b.Total}
		for i := range rep.Groups {
			if c := rep.Groups[i].Change; c != nil {
				if c.Delta > 0 {
					gb.NewOrGrew++
				}
				if c.Gone {
					gb.Gone++
				}
			}
		}
		g.Base = gb
		if b.Truncated {
			g.Notices = append(g.Notices, "The base dump is truncated: it ends inside a goroutine.")
		}
	}
	shown := rep.Groups
	if rows > 0 && len(shown) > rows {
		shown = shown[:rows]
		g.ShowAll = showAll
	}
	g.Count = len(shown)
	g.Groups = make([]view.GoroutineGroupRow, len(shown))
	for i := range shown {
		g.Groups[i] = Row(i+1, &shown[i])
	}
	return g
}

// Row formats one group.
func Row(rank int, gr *goroutines.Group) view.GoroutineGroupRow {
	row := view.GoroutineGroupRow{Rank: rank, Count: gr.Count, Title: Title(gr.Stack), State: gr.State,
		Wait: gr.Wait(), Locked: gr.Locked, Panicking: gr.Panicking, IDCount: len(gr.IDs), IDs: joinIDs(gr.IDs)}
	keys := make([]string, 0, len(gr.Labels))
	for k := range gr.Labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		row.Labels = append(row.Labels, view.Pair{Label: k, Value: gr.Labels[k]})
	}
	if gr.Stack != nil {
		row.Frames = make([]view.GoroutineFrameRow, len(gr.Stack.Frames))
		for i, f := range gr.Stack.Frames {
			row.Frames[i] = view.GoroutineFrameRow{Func: f.Func, Location: f.Location(), Elided: f.Elided}
		}
		if cb := gr.Stack.CreatedBy; cb != nil {
			row.CreatedBy = &view.GoroutineFrameRow{Func: cb.Func, Location: cb.Location()}
			switch n := len(gr.CreatorIDs); {
			case n == 1:
				row.Creators = "in goroutine " + strconv.FormatInt(gr.CreatorIDs[0], 10)
			case n > 1 && n <= 10:
				row.Creators = "in goroutines " + joinIDs(gr.CreatorIDs)
			case n > 10:
				row.Creators = fmt.Sprintf("in %d goroutines", n)
			}
		}
	}
	if c := gr.Change; c != nil {
		ch := &view.GoroutineChangeRow{Base: c.Base, Delta: c.Delta, New: c.New, Gone: c.Gone}
		switch {
		case c.New:
			ch.Text = "new"
		case c.Gone:
			ch.Text = fmt.Sprintf("gone (%d in base)", c.Base)
		case c.Delta != 0:
			ch.Text = fmt.Sprintf("%s from %d", page.SignedCount(c.Delta), c.Base)
		default:
			ch.Text = "unchanged"
		}
		row.Change = ch
	}
	return row
}

// joinIDs writes goroutine ids separated by spaces.
func joinIDs(ids []int64) string {
	if len(ids) == 0 {
		return ""
	}
	b := make([]byte, 0, len(ids)*7)
	for i, id := range ids {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return string(b)
}

// Filter keeps the groups with a frame matching the filter's focus and
// drops those with a frame matching its ignore, as pprof does with samples; it
// reports which of the two matched anything.
func Filter(gs []goroutines.Group, f pprof.Filter) ([]goroutines.Group, pprof.FilterMatches) {
	var m pprof.FilterMatches
	if f.Focus == nil && f.Ignore == nil {
		return gs, m
	}
	matches := func(gr *goroutines.Group, re interface{ MatchString(string) bool }) bool {
		if gr.Stack == nil {
			return false
		}
		for _, fr := range gr.Stack.Frames {
			if re.MatchString(fr.Func) || (fr.File != "" && re.MatchString(fr.File)) {
				return true
			}
		}
		return false
	}
	out := make([]goroutines.Group, 0, len(gs))
	for i := range gs {
		gr := &gs[i]
		if f.Focus != nil {
			if !matches(gr, f.Focus) {
				continue
			}
			m.Focus = true
		}
		if f.Ignore != nil && matches(gr, f.Ignore) {
			m.Ignore = true
			continue
		}
		out = append(out, *gr)
	}
	return out, m
}

// JSON is the analysis of a goroutines report's JSON twin: the view the
// query selects, with the fields of `leakui goroutines -json` ({"total","format",
// "panic","base","groups":[{"count","state","stack",…}]}) inline.
type JSON struct {
	// Mode is "dump" or "diff".
	Mode string `json:"mode"`
	// BaseSHA256 and TargetSHA256 name the dumps shown (the base only in a diff).
	BaseSHA256   string `json:"base_sha256,omitempty"`
	TargetSHA256 string `json:"target_sha256"`
	// GroupsAll counts all groups; Groups holds the first n of them.
	GroupsAll int `json:"groups_all"`
	*goroutines.Report
}

// Analysis wraps a shared report for JSON, cutting a copy to rows groups
// (all when rows is 0).
func Analysis(mode, base, target string, report *goroutines.Report, rows int) JSON {
	cut := *report
	if rows > 0 && len(cut.Groups) > rows {
		cut.Groups = cut.Groups[:rows]
	}
	return JSON{Mode: mode, BaseSHA256: base, TargetSHA256: target, GroupsAll: len(report.Groups), Report: &cut}
}
