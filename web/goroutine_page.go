package web

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/goroutines"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/chart"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/view"
)

// showGoroutines renders /r/{id} for reports over goroutine dumps.
func (s *Server) showGoroutines(w http.ResponseWriter, r *http.Request, rep *store.Report) error {
	q, err := parseGoroutineQuery(r, rep)
	if err != nil {
		return err
	}
	pg, err := s.goroutinePage(r, rep, q)
	if err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, view.Page{Title: pg.Title, Nav: "reports", Description: chart.BannerDescription(pg.Verdict)}, view.GoroutineReportPage(pg))
}

// goroutinePage builds the page model.
func (s *Server) goroutinePage(r *http.Request, rep *store.Report, q goroutineQuery) (view.GoroutineReport, error) {
	path := page.ReportURL(rep.ID)
	pg := view.GoroutineReport{
		ID: rep.ID, Created: page.FormatTime(rep.CreatedAt), Permalink: path,
		Links: []view.Link{
			{Label: "JSON", URL: q.url(page.ReportJSONURL(rep.ID), nil)},
			{Label: "Markdown", URL: q.url(path+".md", nil)},
		},
	}
	for _, a := range rep.Artifacts {
		kind := "goroutine dump"
		if a.Format != "" && a.Format != kind {
			kind += " (" + a.Format + ")"
		}
		pg.Files = append(pg.Files, view.FileInfo{Name: a.Name, Kind: kind, Size: analyze.FormatBytes(a.Size),
			SHA256: a.SHA256, Download: page.ArtifactURL(a.SHA256)})
		if pg.Label == "" {
			pg.Label = a.Label
		}
	}
	base, target := q.artifacts(rep)
	report, err := s.goroutineReport(r.Context(), base, target, q.split)
	if err != nil {
		return pg, err
	}
	if q.mode == goroutineModeDiff {
		pg.Title = fmt.Sprintf("Goroutines: %s → %s", rep.Artifacts[q.base].Name, rep.Artifacts[q.target].Name)
	} else {
		pg.Title = "Goroutines: " + rep.Artifacts[q.file].Name
	}
	pg.Modes = goroutineModeLinks(rep, q, path)
	names := [2]string{rep.Artifacts[q.base].Name, rep.Artifacts[q.target].Name}
	pg.Groups = goroutineGroupsView(report, q.rows, q.url(path, func(v url.Values) { v.Set("n", "all") }), names)
	if q.mode == goroutineModeDump {
		if d, err := s.loadGoroutineDump(r.Context(), target); err == nil && d.PerGoroutine() {
			pg.Groups.CreatorNote = goroutineCreatorNote(q.split != "")
			pg.Groups.SplitURL = q.url(path, func(v url.Values) {
				if q.split != "" {
					v.Del("split")
				} else {
					v.Set("split", goroutines.SplitCreator)
				}
			})
		}
	}
	pg.Verdict = goroutineBanner(pg.Groups)
	return pg, nil
}

// goroutineCreatorNote says in one line how groups treat the creating goroutine:
// by default, unlike panicparse, "in goroutine N" does not split a group.
func goroutineCreatorNote(split bool) string {
	if split {
		return "Groups are split by stack and by the goroutine that created them (\"created by … in goroutine N\"), as panicparse groups."
	}
	return "Groups are by stack, state and creating function; unlike panicparse, the creating goroutine (\"in goroutine N\") does not split a group."
}

// goroutineModeLinks offers each dump alone and the comparison of the first and
// the last, like the profile reports' modes.
func goroutineModeLinks(rep *store.Report, q goroutineQuery, path string) []view.Link {
	if len(rep.Artifacts) < 2 {
		return nil
	}
	switchTo := func(mode string, v url.Values) {
		for _, k := range []string{"mode", "file", "base", "target"} {
			v.Del(k)
		}
		if mode != q.defaultMode {
			v.Set("mode", mode)
		}
	}
	var links []view.Link
	for i, a := range rep.Artifacts {
		links = append(links, view.Link{Label: a.Name, Current: q.mode == goroutineModeDump && q.file == i,
			URL: q.url(path, func(v url.Values) {
				switchTo(goroutineModeDump, v)
				if i > 0 {
					v.Set("file", strconv.Itoa(i))
				}
			})})
	}
	last := len(rep.Artifacts) - 1
	links = append(links, view.Link{Label: "diff", Current: q.mode == goroutineModeDiff && q.base == 0 && q.target == last,
		URL: q.url(path, func(v url.Values) { switchTo(goroutineModeDiff, v) })})
	return links
}

// goroutineGroupsView formats a report's first rows groups (all when rows is 0);
// names are the base's and the target's file names, for a comparison.
func goroutineGroupsView(rep *goroutines.Report, rows int, showAll string, names [2]string) view.GoroutineGroups {
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
		g.Groups[i] = goroutineGroupRow(i+1, &shown[i])
	}
	return g
}

// goroutineGroupRow formats one group.
func goroutineGroupRow(rank int, gr *goroutines.Group) view.GoroutineGroupRow {
	row := view.GoroutineGroupRow{Rank: rank, Count: gr.Count, Title: goroutineGroupTitle(gr.Stack), State: gr.State,
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

// goroutineFilter keeps the groups with a frame matching the filter's focus and
// drops those with a frame matching its ignore, as pprof does with samples; it
// reports which of the two matched anything.
func goroutineFilter(groups []goroutines.Group, f pprof.Filter) ([]goroutines.Group, pprof.FilterMatches) {
	var m pprof.FilterMatches
	if f.Focus == nil && f.Ignore == nil {
		return groups, m
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
	out := make([]goroutines.Group, 0, len(groups))
	for i := range groups {
		gr := &groups[i]
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
