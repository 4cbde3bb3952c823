package profiles

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
)

// Report modes over profiles and the views of one mode.
const (
	modeSingle = "profile"
	modeDiff   = "diff"
	modeSeries = "series"
	viewTop    = "top"
	// seriesKind is what an upload of three or more profiles becomes.
	seriesKind = modeSeries
	viewFlame  = "flame"
)

// profileQuery is everything a profile report page is parameterised by; all of it
// comes from the URL, so a link reproduces the view.
type profileQuery struct {
	mode, view   string
	defaultMode  string // the report's own kind
	files        int    // how many profiles the report has
	sampleType   string // as given (si), "" for the default
	rows         int    // 0 means all
	file         int    // the file shown in single mode
	base, target int    // the files compared in diff mode
	filter       pprof.Filter
	filterText   [6]string // f, i, h, s, tf, ti as given
	// order is the series order the user chose (file numbers), nil for the
	// profiles' own time order.
	order []int
	// pprofTrim shows only the rows pprof's default -top shows (trim=pprof).
	pprofTrim bool
	// sort orders the top table: "" (pprof's flat order), sortCum or sortName.
	sort string
	// fn is the function of the sandwich view (a top table row's name).
	fn string
	// wide draws a profile's flame graph across the page, its top table
	// below (layout=wide).
	wide bool
}

// trimPprof is the value of the trim parameter that shows pprof's default view.
const trimPprof = "pprof"

// layoutWide is the value of the layout parameter that draws the flame graph
// across the page.
const layoutWide = "wide"

// parseProfileQuery reads the query string of a report over n profiles.
func parseProfileQuery(r *http.Request, rep *store.Report) (profileQuery, error) {
	v := r.URL.Query()
	n := len(rep.Artifacts)
	q := profileQuery{mode: rep.Kind, defaultMode: rep.Kind, files: n, view: viewTop, sampleType: v.Get("si"), rows: page.DefaultRows}
	if m := v.Get("mode"); m != "" {
		q.mode = m
	}
	switch {
	case q.mode == modeSingle:
	case q.mode == modeDiff && n >= 2:
	case q.mode == modeSeries && n >= 3:
	default:
		return q, serrors.Errorf(http.StatusBadRequest, "mode %q is not available for a report of %d profiles", q.mode, n)
	}
	switch view := v.Get("view"); view {
	case "", viewTop:
	case viewFlame:
		q.view = viewFlame
	default:
		if _, ok := lookupProfileView(view); !ok {
			return q, serrors.Errorf(http.StatusBadRequest, "view must be top, flame or %s, not %q", extraViewNames(), view)
		}
		q.view = view
	}
	var err error
	if q.rows, err = page.QueryRows(v, q.rows, "rows"); err != nil {
		return q, err
	}
	index := func(name string, def int) (int, error) { return page.QueryFile(v, name, def, n) }
	if q.file, err = index("file", 0); err != nil {
		return q, err
	}
	if n >= 2 {
		if q.base, err = index("base", 0); err != nil {
			return q, err
		}
		if q.target, err = index("target", n-1); err != nil {
			return q, err
		}
	}
	if o := v.Get("order"); o != "" {
		if q.order, err = parseOrder(o, n); err != nil {
			return q, err
		}
	}
	switch t := v.Get("trim"); t {
	case "":
	case trimPprof:
		q.pprofTrim = true
	default:
		return q, serrors.Errorf(http.StatusBadRequest, "trim must be %s or absent, not %q", trimPprof, t)
	}
	switch l := v.Get("layout"); l {
	case "":
	case layoutWide:
		q.wide = true
	default:
		return q, serrors.Errorf(http.StatusBadRequest, "layout must be %s or absent, not %q", layoutWide, l)
	}
	if q.sort, q.fn, err = parseSortAndFunction(v); err != nil {
		return q, err
	}
	q.filterText = [6]string{v.Get("f"), v.Get("i"), v.Get("h"), v.Get("s"), v.Get("tf"), v.Get("ti")}
	if q.filter, err = pprof.CompileFilter(q.filterText[0], q.filterText[1], q.filterText[2], q.filterText[3]); err != nil {
		return q, err
	}
	// tf and ti are pprof's -tagfocus and -tagignore ("key=value"): a labels
	// view's value links to its samples alone.
	if q.filter.TagFocus, err = pprof.CompileTagFilter("tagfocus", q.filterText[4]); err != nil {
		return q, err
	}
	if q.filter.TagIgnore, err = pprof.CompileTagFilter("tagignore", q.filterText[5]); err != nil {
		return q, err
	}
	return q, nil
}

// url renders the query back into a URL under path, with changes applied.
func (q profileQuery) url(path string, change func(v url.Values)) string {
	v := url.Values{}
	set := func(k, val, def string) {
		if val != def {
			v.Set(k, val)
		}
	}
	set("mode", q.mode, q.defaultMode)
	set("view", q.view, viewTop)
	set("si", q.sampleType, "")
	for i, k := range []string{"f", "i", "h", "s", "tf", "ti"} {
		set(k, q.filterText[i], "")
	}
	if q.pprofTrim {
		v.Set("trim", trimPprof)
	}
	if q.wide {
		v.Set("layout", layoutWide)
	}
	set("sort", q.sort, "")
	set("fn", q.fn, "")
	switch q.mode {
	case modeSingle:
		set("file", strconv.Itoa(q.file), "0")
	case modeDiff:
		set("base", strconv.Itoa(q.base), "0")
		set("target", strconv.Itoa(q.target), strconv.Itoa(q.files-1))
	case modeSeries:
		if q.order != nil {
			v.Set("order", formatOrder(q.order))
		}
	}
	if change != nil {
		change(v)
	}
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

// parseOrder reads a permutation of the file numbers 0..n-1, such as "2,0,1".
func parseOrder(s string, n int) ([]int, error) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, serrors.Errorf(http.StatusBadRequest, "order must list all %d files once, such as 0,1,2, not %q", n, s)
	}
	seen := make([]bool, n)
	out := make([]int, n)
	for i, p := range parts {
		k, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || k < 0 || k >= n || seen[k] {
			return nil, serrors.Errorf(http.StatusBadRequest, "order must list all %d files once, such as 0,1,2, not %q", n, s)
		}
		seen[k], out[i] = true, k
	}
	return out, nil
}

func formatOrder(order []int) string {
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = strconv.Itoa(k)
	}
	return strings.Join(parts, ",")
}
