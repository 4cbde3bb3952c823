package profiles

import (
	"cmp"
	"context"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
	"github.com/leakui/leakui/web/view"
)

// The top table's orders (?sort=) and the sandwich view (?view=sandwich&fn=NAME).
const (
	sortFlat     = "flat"
	sortCum      = "cum"
	sortName     = "name"
	viewSandwich = "sandwich"
	// maxFunctionName bounds ?fn=: pprof's names are long, never this long.
	maxFunctionName = 4096
)

// parseSortAndFunction reads ?sort= (flat, the default, cum or name) and ?fn=.
func parseSortAndFunction(v url.Values) (sort, fn string, err error) {
	switch sort = v.Get("sort"); sort {
	case "", sortFlat:
		sort = ""
	case sortCum, sortName:
	default:
		return "", "", serrors.Errorf(http.StatusBadRequest, "sort must be flat, cum or name, not %q", sort)
	}
	if fn = v.Get("fn"); len(fn) > maxFunctionName {
		return "", "", serrors.Errorf(http.StatusBadRequest, "fn is longer than %d bytes", maxFunctionName)
	}
	return sort, fn, nil
}

// sortTopRows orders top rows by the column sort names: cum (largest absolute
// first) or name (A to Z); "" keeps pprof's flat order. Ties go by name, then by
// flat, so the order is the same on every request.
func sortTopRows(rows []pprof.TopRow, sort string) {
	switch sort {
	case sortCum:
		slices.SortStableFunc(rows, func(a, b pprof.TopRow) int {
			return cmp.Or(cmp.Compare(abs(b.Cum), abs(a.Cum)), strings.Compare(a.Name, b.Name), cmp.Compare(abs(b.Flat), abs(a.Flat)))
		})
	case sortName:
		slices.SortStableFunc(rows, func(a, b pprof.TopRow) int {
			return cmp.Or(strings.Compare(a.Name, b.Name), cmp.Compare(abs(b.Flat), abs(a.Flat)))
		})
	}
}

// focusExpr is the focus filter that keeps exactly one function: ^name$ with the
// name's metacharacters quoted.
func focusExpr(name string) string { return "^" + regexp.QuoteMeta(name) + "$" }

// sandwichURL is the sandwich view of one function, keeping the query's
// profile, sample type and filters.
func (q profileQuery) sandwichURL(path, name string) string {
	return q.url(path, func(v url.Values) { v.Set("view", viewSandwich); v.Set("fn", name) })
}

// focusURL is the top table focused on one function (?f=^name$).
func (q profileQuery) focusURL(path, name string) string {
	return q.url(path, func(v url.Values) { v.Del("view"); v.Del("fn"); v.Set("f", focusExpr(name)) })
}

// linkTopTable links every row of a top table to its sandwich and its focused
// view, and the column heads to the table sorted by them.
func (ps *profileSet) linkTopTable(t *view.TopTable, path string) {
	q := ps.q
	t.Sort = cmp.Or(q.sort, sortFlat)
	for i, col := range []string{sortFlat, sortCum, sortName} {
		t.SortURLs[i] = q.url(path, func(v url.Values) {
			v.Del("sort")
			if col != sortFlat {
				v.Set("sort", col)
			}
		})
	}
	for i := range t.Rows {
		t.Rows[i].Sandwich = q.sandwichURL(path, t.Rows[i].Name)
		t.Rows[i].Focus = q.focusURL(path, t.Rows[i].Name)
	}
}

// sandwichView is the view of one function's callers and callees; it is offered
// on a single profile once a function is chosen (?fn=).
func sandwichView() profileView {
	return profileView{
		key:     viewSandwich,
		label:   "sandwich",
		applies: func(ps *profileSet) bool { return ps.q.mode == modeSingle && ps.q.fn != "" },
		page:    (*Kind).sandwichPage,
		json:    (*Kind).sandwichJSON,
	}
}

// sandwich computes the chosen function's sandwich over the filtered profile.
func (ps *profileSet) sandwich(notices *[]string) (pprof.Sandwich, error) {
	fp, err := ps.filtered(ps.shown(), notices)
	if err != nil {
		return pprof.Sandwich{}, err
	}
	return fp.Sandwich(ps.si, ps.q.fn)
}

// sandwichPage fills a profile page with the sandwich of ?fn=.
func (s *Kind) sandwichPage(_ context.Context, ps *profileSet, pg *view.ProfileReport) error {
	sw, err := ps.sandwich(&pg.Notices)
	if err != nil {
		return err
	}
	path := page.ReportURL(ps.rep.ID)
	q := ps.q
	v := view.SandwichView{
		Name: sw.Name, SampleType: sw.SampleType,
		Flat: analyze.FormatValue(sw.Flat, sw.Unit), Cum: analyze.FormatValue(sw.Cum, sw.Unit),
		FlatPct: pprofPercent(sw.Flat, sw.Total), CumPct: pprofPercent(sw.Cum, sw.Total),
		FlatValue: sw.Flat, CumValue: sw.Cum,
		Focus: q.focusURL(path, sw.Name),
		Top:   q.url(path, func(v url.Values) { v.Del("view"); v.Del("fn") }),
		Flame: q.url(path, func(v url.Values) { v.Set("view", viewFlame) }),
	}
	if sw.Roots != 0 {
		v.Roots = analyze.FormatValue(sw.Roots, sw.Unit)
	}
	edges := func(list []pprof.SandwichEdge) []view.SandwichEdge {
		var out []view.SandwichEdge
		for _, e := range list {
			out = append(out, view.SandwichEdge{Name: e.Name, Value: analyze.FormatValue(e.Value, sw.Unit), Exact: e.Value,
				Pct: pprofPercent(e.Value, sw.Cum), URL: q.sandwichURL(path, e.Name)})
		}
		return out
	}
	v.Callers, v.Callees = edges(sw.Callers), edges(sw.Callees)
	pg.Extra = view.SandwichBlock(v)
	return nil
}

// sandwichJSON fills the JSON twin's analysis with the sandwich.
func (s *Kind) sandwichJSON(_ context.Context, ps *profileSet, doc *kind.ReportJSON) error {
	sw, err := ps.sandwich(&doc.Notices)
	if err != nil {
		return err
	}
	doc.Analysis = sw
	return nil
}

// sideRows is how many rows the top table beside a flame graph shows.
const sideRows = 30

// sideTable is the compact top table shown beside a profile's flame graph, in
// the query's order, its rows linked to their sandwiches.
func (ps *profileSet) sideTable(p *pprof.Profile, path string) (*view.TopTable, error) {
	q := ps.q
	top, err := p.Top(ps.si)
	if err != nil {
		return nil, err
	}
	sortTopRows(top.Rows, q.sort)
	t := topTable(top, nil, sideRows, q.url(path, func(v url.Values) { v.Del("view"); v.Set("n", "all") }), false, "")
	t.Compact = true
	ps.linkTopTable(&t, path)
	return &t, nil
}

// linkFlame gives a flame graph of a single profile the URLs its script opens
// for a clicked or searched function: the sandwich and the focused view.
func (ps *profileSet) linkFlame(f *view.Flame, path string) {
	q := ps.q
	f.SandwichURL = q.url(path, func(v url.Values) { v.Set("view", viewSandwich); v.Del("fn") })
	f.FocusURL = q.url(path, func(v url.Values) { v.Del("view"); v.Del("fn"); v.Del("f") })
}
