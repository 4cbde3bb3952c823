package profiles

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/chart"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/view"
)

// profileSet is a report's profiles, loaded, with the query that selects a view.
type profileSet struct {
	rep      *store.Report
	profiles []*pprof.Profile
	q        profileQuery
	si       int // resolved sample index
	// budget is charged with the filtered copies of the request's profiles;
	// release gives it back when the request is done.
	budget *analyze.Budget
}

// release gives back what the request's filtered profiles were charged.
func (ps *profileSet) release() { ps.budget.Release() }

// loadProfileSet loads every profile of a report and resolves the query.
func (s *Kind) loadProfileSet(r *http.Request, rep *store.Report) (*profileSet, error) {
	q, err := parseProfileQuery(r, rep)
	if err != nil {
		return nil, err
	}
	set := &profileSet{rep: rep, q: q}
	// Labels, the call graph and tag filters read the profile again with pprof's parser: its
	// bytes are loaded for this request, charged to its budget, not cached.
	reparse := q.view == viewLabels || q.view == viewCallGraph || q.filter.TagFocus != nil || q.filter.TagIgnore != nil
	if q.filter.Active() || reparse {
		set.budget = s.d.Analysis()
	}
	for _, a := range rep.Artifacts {
		load := s.loadProfile
		if reparse {
			load = func(ctx context.Context, sha string) (*pprof.Profile, error) {
				return s.loadProfileBytes(ctx, sha, set.budget)
			}
		}
		p, err := load(r.Context(), a.SHA256)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a.Name, err)
		}
		set.profiles = append(set.profiles, p)
	}
	if len(set.profiles) == 0 {
		return nil, fmt.Errorf("report %s has no profiles", rep.ID)
	}
	if set.si, err = set.shown().SampleIndex(q.sampleType); err != nil {
		return nil, err
	}
	return set, nil
}

// shown is the profile whose sample types the page offers: the single one, or the
// diff's target.
func (ps *profileSet) shown() *pprof.Profile {
	switch ps.q.mode {
	case modeDiff:
		return ps.profiles[ps.q.target]
	case modeSeries:
		return ps.profiles[len(ps.profiles)-1]
	}
	return ps.profiles[ps.q.file]
}

// filtered applies the query's filter to a profile and adds a notice for every
// option that matched nothing.
// The copy a filter makes is charged to the request's budget (ErrTooLarge or
// ErrBusy when it has no room).
func (ps *profileSet) filtered(p *pprof.Profile, notices *[]string) (*pprof.Profile, error) {
	fp, m, err := p.Filter(ps.q.filter, ps.budget)
	if err != nil {
		return nil, err
	}
	for i, q := range ps.profiles {
		if q == p {
			ps.filterNotices(i, ps.q.filter.Unmatched(m), notices)
			break
		}
	}
	return fp, nil
}

// filterNotices adds a notice for every filter option that matched nothing in
// the report's file (nil notices: none).
func (ps *profileSet) filterNotices(file int, unmatched []string, notices *[]string) {
	if notices == nil {
		return
	}
	for _, name := range unmatched {
		*notices = append(*notices, fmt.Sprintf("The %s filter %q matched nothing in %s.", name, ps.filterText(name), ps.rep.Artifacts[file].Name))
	}
}

// filteredPair filters a diff's base and target.
func (ps *profileSet) filteredPair(notices *[]string) (base, target *pprof.Profile, err error) {
	if base, err = ps.filtered(ps.profiles[ps.q.base], notices); err != nil {
		return nil, nil, err
	}
	if target, err = ps.filtered(ps.profiles[ps.q.target], notices); err != nil {
		return nil, nil, err
	}
	return base, target, nil
}

func (ps *profileSet) filterText(option string) string {
	switch option {
	case "focus":
		return ps.q.filterText[0]
	case "ignore":
		return ps.q.filterText[1]
	case "hide":
		return ps.q.filterText[2]
	case "tagfocus":
		return ps.q.filterText[4]
	case "tagignore":
		return ps.q.filterText[5]
	}
	return ps.q.filterText[3]
}

// showProfiles renders /r/{id} for reports over profiles.
func (s *Kind) showProfiles(w http.ResponseWriter, r *http.Request, rep *store.Report) error {
	ps, err := s.loadProfileSet(r, rep)
	if err != nil {
		return err
	}
	defer ps.release()
	pg, err := s.profilePage(r.Context(), ps)
	if err != nil {
		return err
	}
	return s.d.Render(w, r, http.StatusOK, view.Page{Title: pg.Title, Nav: "reports", Description: chart.BannerDescription(pg.Verdict)}, view.ProfileReportPage(pg))
}

// profilePage builds the page model.
func (s *Kind) profilePage(ctx context.Context, ps *profileSet) (view.ProfileReport, error) {
	rep, q := ps.rep, ps.q
	path := page.ReportURL(rep.ID)
	pg := view.ProfileReport{
		ID: rep.ID, Created: page.FormatTime(rep.CreatedAt), Permalink: path,
		Links: []view.Link{
			{Label: "JSON", URL: q.url(page.ReportJSONURL(rep.ID), nil)},
			{Label: "Markdown", URL: q.url(path+".md", nil)},
		},
	}
	for i, a := range rep.Artifacts {
		p := ps.profiles[i]
		fi := view.FileInfo{Name: a.Name, Kind: "pprof " + strings.Join(typeNames(p), "/") + " (" + p.Format + ")",
			Size: analyze.FormatBytes(a.Size), SHA256: a.SHA256, Download: page.ArtifactURL(a.SHA256)}
		if t := p.Time(); !t.IsZero() {
			fi.Time = page.FormatTime(t)
		}
		pg.Files = append(pg.Files, fi)
		if pg.Label == "" {
			pg.Label = a.Label
		}
	}
	shown := ps.shown()
	switch q.mode {
	case modeDiff:
		pg.Title = fmt.Sprintf("%s → %s", rep.Artifacts[q.base].Name, rep.Artifacts[q.target].Name)
	case modeSeries:
		pg.Title = fmt.Sprintf("Series of %d profiles", len(ps.profiles))
	default:
		pg.Title = rep.Artifacts[q.file].Name
		pg.Meta = profileMeta(shown)
	}
	pg.Modes = ps.modeLinks(path)
	for i, st := range shown.SampleTypes() {
		key := ""
		if i < 9 {
			key = strconv.Itoa(i + 1)
		}
		pg.Types = append(pg.Types, view.Link{
			Label: st.Type, Value: analyze.FormatValue(st.Total, st.Unit), Key: key, Current: i == ps.si,
			URL: q.url(path, func(v url.Values) { v.Set("si", st.Type) }),
		})
	}
	pg.Views = []view.Link{
		{Label: "top", URL: q.url(path, func(v url.Values) { v.Del("view") }), Current: q.view == viewTop},
		{Label: "flame graph", URL: q.url(path, func(v url.Values) { v.Set("view", viewFlame) }), Current: q.view == viewFlame},
	}
	pg.Filter = ps.filterForm(path)
	// Views registered in profileViews (goroutine groups) render themselves.
	pg.Views = append(pg.Views, ps.extraViewLinks(path)...)
	if shown.IsGoroutineLeakProfile() && q.view != viewGoroutines {
		pg.Notices = append(pg.Notices, "This is the Go runtime's goroutineleak profile: every goroutine in it is proven leaked by the Go runtime. The goroutine groups view lists them by stack.")
	}
	if pv, ok, err := ps.extraView(); ok || err != nil {
		if err != nil {
			return pg, err
		}
		return pg, pv.page(s, ctx, ps, &pg)
	}
	switch q.mode {
	case modeDiff:
		var d view.DiffTable
		if q.view == viewFlame {
			cut, err := s.diffFlameCut(ctx, ps, &pg.Notices)
			if err != nil {
				return pg, err
			}
			d = ps.diffFlameTable(cut)
			pg.Links = append(pg.Links, view.Link{Label: "SVG image", URL: reportFlameImageURL(ps)})
		} else {
			base, target, err := ps.filteredPair(&pg.Notices)
			if err != nil {
				return pg, err
			}
			if d, err = ps.diffTable(path, base, target); err != nil {
				return pg, err
			}
		}
		pg.Diff = &d
		pg.Verdict = diffBanner(d)
	case modeSeries:
		rep, err := ps.profileSeries(&pg.Notices)
		if err != nil {
			return pg, err
		}
		sv := chart.Series("profiles", rep, false, func(order []int) string {
			return q.url(path, func(v url.Values) { v.Set("order", formatOrder(order)) })
		})
		sv.InBanner = true
		sv.Warnings = nil // the banner says them
		sv.Chart.ImageURL = q.url(page.ReportChartImageURL(ps.rep.ID, "totals", ""), nil)
		pg.Series = &sv
		pg.Verdict = chart.SeriesBanner(rep)
		pg.Views = nil
	default:
		p, err := ps.filtered(shown, &pg.Notices)
		if err != nil {
			return pg, err
		}
		if q.view == viewFlame {
			cut, err := s.flameCut(ctx, ps, q.file, nil) // filtered has given the notices
			if err != nil {
				return pg, err
			}
			f := flameView("flame-data", cut)
			ps.linkFlame(&f, path)
			f.Wide = q.wide
			f.LayoutURL = q.url(path, func(v url.Values) {
				if q.wide {
					v.Del("layout")
				} else {
					v.Set("layout", layoutWide)
				}
			})
			pg.Flame = &f
			pg.Links = append(pg.Links, view.Link{Label: "SVG image", URL: reportFlameImageURL(ps)})
			if pg.Top, err = ps.sideTable(p, path); err != nil {
				return pg, err
			}
			top, err := p.Top(ps.si)
			if err != nil {
				return pg, err
			}
			if pg.Verdict, err = topBanner(p, ps.si, top, len(top.Rows)); err != nil {
				return pg, err
			}
		} else {
			nodeFraction := 0.0 // every row: the marks pprof -top -nodefraction=0 prints
			if q.pprofTrim {
				nodeFraction = pprof.DefaultNodeFraction
			}
			marks, err := p.InlineMarks(ps.si, nodeFraction, pprof.DefaultEdgeFraction)
			if err != nil {
				return pg, err
			}
			top, err := p.Top(ps.si)
			if err != nil {
				return pg, err
			}
			sortTopRows(top.Rows, q.sort)
			t := topTable(top, marks, q.rows, q.url(path, func(v url.Values) { v.Set("n", "all") }), q.pprofTrim,
				q.url(path, func(v url.Values) {
					if q.pprofTrim {
						v.Del("trim")
					} else {
						v.Set("trim", trimPprof)
					}
				}))
			ps.linkTopTable(&t, path)
			pg.Top = &t
			if pg.Verdict, err = topBanner(p, ps.si, top, t.All); err != nil {
				return pg, err
			}
		}
		if q.mode == modeSingle && len(rep.Artifacts) == 1 {
			cf, err := s.compareForm(ctx, rep, shown)
			if err != nil {
				return pg, err
			}
			pg.Compare = cf
		}
	}
	return pg, nil
}

// modeLinks offers the views the report's files allow: each file alone, their
// diff, their series.
func (ps *profileSet) modeLinks(path string) []view.Link {
	n := len(ps.profiles)
	if n < 2 {
		return nil
	}
	q := ps.q
	// switchTo moves the query to another mode, leaving the mode out of the URL
	// when it is the report's own.
	switchTo := func(mode string, v url.Values) {
		for _, k := range []string{"mode", "file", "base", "target"} {
			v.Del(k)
		}
		if mode != q.defaultMode {
			v.Set("mode", mode)
		}
	}
	var links []view.Link
	for i, a := range ps.rep.Artifacts {
		links = append(links, view.Link{Label: a.Name, Current: q.mode == modeSingle && q.file == i,
			URL: q.url(path, func(v url.Values) {
				switchTo(modeSingle, v)
				if i > 0 {
					v.Set("file", strconv.Itoa(i))
				}
			})})
	}
	links = append(links, view.Link{Label: "diff", Current: q.mode == modeDiff,
		URL: q.url(path, func(v url.Values) { switchTo(modeDiff, v) })})
	if n >= 3 {
		links = append(links, view.Link{Label: "series", Current: q.mode == modeSeries,
			URL: q.url(path, func(v url.Values) { switchTo(modeSeries, v) })})
	}
	return links
}

// filterForm fills the filter form, keeping the other parameters.
func (ps *profileSet) filterForm(path string) view.FilterForm {
	q := ps.q
	f := view.FilterForm{Action: path, Focus: q.filterText[0], Ignore: q.filterText[1], Hide: q.filterText[2], Show: q.filterText[3],
		Active: q.filter.Active()}
	keep, _ := url.ParseQuery(strings.TrimPrefix(strings.TrimPrefix(q.url("", nil), path), "?"))
	for _, k := range []string{"mode", "view", "si", "file", "base", "target"} {
		if v := keep.Get(k); v != "" {
			f.Keep = append(f.Keep, view.Pair{Label: k, Value: v})
		}
	}
	f.Clear = q.url(path, func(v url.Values) {
		for _, k := range []string{"f", "i", "h", "s"} {
			v.Del(k)
		}
	})
	return f
}

// profileMeta describes one profile.
func profileMeta(p *pprof.Profile) []view.Pair {
	var m []view.Pair
	if t := p.Time(); !t.IsZero() {
		m = append(m, view.Pair{Label: "Profile time", Value: page.FormatTime(t)})
	}
	if d := p.Duration(); d > 0 {
		m = append(m, view.Pair{Label: "Duration", Value: d.Round(time.Millisecond).String()})
	}
	if b := p.MainBinary(); b != "" {
		m = append(m, view.Pair{Label: "Program", Value: b})
	}
	m = append(m, view.Pair{Label: "Samples", Value: analyze.FormatCount(int64(p.Samples()))})
	return m
}

func typeNames(p *pprof.Profile) []string {
	var out []string
	for _, st := range p.SampleTypes() {
		out = append(out, st.Type)
	}
	return out
}

// topTable formats the first rows of a top table (all when rows is 0), with
// pprof's percentages and inline marks (by name). pprofTrim shows only the rows
// pprof's default -top shows (see TopResult.PprofTrim); toggle links to the other
// view.
func topTable(top pprof.TopResult, marks map[string]string, rows int, showAll string, pprofTrim bool, toggle string) view.TopTable {
	kept, dropped, cutoff := top.PprofTrim(pprof.DefaultNodeFraction)
	t := view.TopTable{SampleType: top.SampleType, Total: analyze.FormatValue(top.Total, top.Unit),
		Dropped: dropped, DroppedCutoff: analyze.FormatValue(cutoff, top.Unit), PprofView: pprofTrim, Toggle: toggle}
	if top.Shown != top.Total {
		t.Shown = analyze.FormatValue(top.Shown, top.Unit)
	}
	shown := top.Rows
	if pprofTrim {
		shown = kept
	}
	t.All = len(shown)
	if rows > 0 && len(shown) > rows {
		shown = shown[:rows]
		t.ShowAll = showAll
	}
	t.Count = len(shown)
	var sum, maxFlat int64
	for _, row := range shown {
		maxFlat = max(maxFlat, abs(row.Flat))
	}
	for i, row := range shown {
		sum += row.Flat
		bar := 0
		if maxFlat > 0 {
			bar = int(abs(row.Flat) * 100 / maxFlat)
		}
		t.Rows = append(t.Rows, view.TopRow{
			Rank: i + 1, Name: row.Name, Inline: marks[row.Name],
			Flat: analyze.FormatValue(row.Flat, top.Unit), FlatPct: pprofPercent(row.Flat, top.Total),
			SumPct: pprofPercent(sum, top.Total),
			Cum:    analyze.FormatValue(row.Cum, top.Unit), CumPct: pprofPercent(row.Cum, top.Total),
			FlatValue: row.Flat, CumValue: row.Cum, BarPct: bar,
		})
	}
	return t
}

// pprofPercent is a percentage as go tool pprof prints it ("0.015%", "100%"),
// without its padding.
func pprofPercent(part, total int64) string {
	return strings.TrimSpace(pprof.Percentage(part, total))
}

// diffTotals fills the totals of a diff's table: the base, the target and the
// change, as pprof totals them (the sums of the samples' absolute values).
func (ps *profileSet) diffTotals(sampleType, unit string, base, target int64) view.DiffTable {
	change := target - base
	return view.DiffTable{
		SampleType: sampleType, BaseName: ps.rep.Artifacts[ps.q.base].Name, TargetName: ps.rep.Artifacts[ps.q.target].Name,
		Base: analyze.FormatValue(base, unit), Target: analyze.FormatValue(target, unit),
		Change: analyze.FormatSignedValue(change, unit), Ratio: analyze.SignedPercent(change, base), Grew: change > 0,
	}
}

// diffFlameTable formats a diff's flame graph: the totals, from the trees the
// graph is cut from, and the graph; nothing walks the profiles.
func (ps *profileSet) diffFlameTable(cut *pprof.FlameCut) view.DiffTable {
	t := ps.diffTotals(cut.SampleType, cut.Unit, cut.BaseAbsTotal, cut.AbsTotal)
	f := flameView("flame-data", cut)
	t.Flame = &f
	return t
}

// diffTable formats a diff as the table of what grew.
func (ps *profileSet) diffTable(path string, base, target *pprof.Profile) (view.DiffTable, error) {
	q := ps.q
	d, err := pprof.Diff(base, target, ps.si)
	if err != nil {
		return view.DiffTable{}, err
	}
	t := ps.diffTotals(d.SampleType, d.Unit, d.BaseTotal, d.TargetTotal)
	// pprof's default -top -diff_base drops the rows its node fraction
	// leaves out; trim=pprof shows only the rows it keeps, as the JSON does.
	trimmed := d.Trimmed(pprof.DefaultNodeFraction)
	t.Dropped, t.DroppedCutoff, t.PprofView = trimmed.Dropped, analyze.FormatValue(trimmed.DroppedCutoff, d.Unit), q.pprofTrim
	t.Toggle = q.url(path, func(v url.Values) {
		if q.pprofTrim {
			v.Del("trim")
		} else {
			v.Set("trim", trimPprof)
		}
	})
	if q.pprofTrim {
		d = trimmed
	}
	t.All = len(d.Rows)
	rows := d.Rows
	if q.rows > 0 && len(rows) > q.rows {
		rows = rows[:q.rows]
		t.ShowAll = q.url(path, func(v url.Values) { v.Set("n", "all") })
	}
	t.Count = len(rows)
	for i, r := range rows {
		t.Rows = append(t.Rows, view.DiffRow{
			Rank: i + 1, Name: r.Name, Flat: analyze.FormatSignedValue(r.Flat, d.Unit), Cum: analyze.FormatSignedValue(r.Cum, d.Unit),
			BaseFlat: analyze.FormatValue(r.BaseFlat, d.Unit), TargetFlat: analyze.FormatValue(r.TargetFlat, d.Unit),
			PctOf: pprofPercent(r.Flat, d.Total), FlatValue: r.Flat, CumValue: r.Cum, Grew: r.Flat > 0,
		})
	}
	return t, nil
}

// compareForm lists the recent single-profile reports of the same type as bases.
func (s *Kind) compareForm(ctx context.Context, rep *store.Report, p *pprof.Profile) (*view.CompareForm, error) {
	// Only single profiles' summaries are read: small, and never another
	// kind's.
	recent, err := s.d.Store.SearchReports(ctx, store.ReportSearch{Kind: modeSingle, Summaries: true, Limit: 50})
	if err != nil {
		return nil, err
	}
	cf := &view.CompareForm{Action: page.ReportCompareURL(rep.ID)}
	want := strings.Join(typeNames(p), "/")
	for _, other := range recent {
		if other.ID == rep.ID || other.Kind != modeSingle {
			continue
		}
		sum, ok := decodeProfileSummary(other.Summary)
		if !ok || sum.typeNames() != want {
			continue
		}
		name := other.ID
		if len(other.Artifacts) > 0 && other.Artifacts[0].Name != "" {
			name = other.Artifacts[0].Name
		}
		cf.Choices = append(cf.Choices, view.Pair{Value: other.ID, Label: fmt.Sprintf("%s (%s)", name, page.FormatTime(other.CreatedAt))})
	}
	return cf, nil
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// sampleIndexName is the sample type the query names ("" for the default).
func (ps *profileSet) sampleIndexName() string { return ps.q.sampleType }

// profileSeries analyzes profiles as a series, in the query's order when given.
func (ps *profileSet) profileSeries(notices *[]string) (*series.Report, error) {
	order := ps.q.order
	if order == nil {
		order = make([]int, len(ps.profiles))
		for i := range order {
			order[i] = i
		}
	}
	snaps := make([]pprof.Snapshot, len(order))
	for i, k := range order {
		fp, err := ps.filtered(ps.profiles[k], notices)
		if err != nil {
			return nil, err
		}
		snaps[i] = pprof.Snapshot{Name: ps.rep.Artifacts[k].Name, Profile: fp}
	}
	rep, err := pprof.Series(snaps, series.Options{SampleIndex: ps.sampleIndexName(), KeepOrder: ps.q.order != nil})
	if err != nil {
		return nil, err
	}
	if rep.RateNote != "" {
		*notices = append(*notices, "Rates: "+rep.RateNote+".")
	}
	// Map analysis positions back to the report's file numbers.
	for i := range rep.Snapshots {
		rep.Snapshots[i].Index = order[rep.Snapshots[i].Index]
	}
	return rep, nil
}
