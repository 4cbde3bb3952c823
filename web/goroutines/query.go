package goroutines

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/leakui/leakui/analyze/goroutines"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/groups"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
)

// goroutineQuery is everything a goroutines page is parameterised by; all of it
// comes from the URL, so a link reproduces the view.
type goroutineQuery struct {
	mode, defaultMode string
	files             int // how many dumps the report has
	file              int // the dump shown in dump mode
	base, target      int // the dumps compared in diff mode
	rows              int // groups shown; 0 means all
	// split is goroutines.SplitCreator to split groups by creating goroutine
	// (one dump only), else "".
	split string
}

// parseGoroutineQuery reads mode (dump or diff), file, base, target, n (a number
// of groups or "all") and split ("creator", one dump only).
func parseGoroutineQuery(r *http.Request, rep *store.Report) (goroutineQuery, error) {
	v := r.URL.Query()
	n := len(rep.Artifacts)
	q := goroutineQuery{mode: groups.ModeDump, files: n, rows: page.DefaultRows}
	if rep.Kind == kindGoroutinesDiff && n >= 2 {
		q.mode = groups.ModeDiff
	}
	q.defaultMode = q.mode
	switch m := v.Get("mode"); {
	case m == "":
	case m == groups.ModeDump, m == groups.ModeDiff && n >= 2:
		q.mode = m
	default:
		return q, serrors.Errorf(http.StatusBadRequest, "mode %q is not available for a report of %d goroutine dumps (dump, or diff for two or more)", m, n)
	}
	switch sp := v.Get("split"); {
	case sp == "":
	case sp == goroutines.SplitCreator && q.mode == groups.ModeDump:
		q.split = sp
	case sp == goroutines.SplitCreator:
		return q, serrors.Errorf(http.StatusBadRequest, "split=creator applies to one dump (mode=dump), not to a comparison")
	default:
		return q, serrors.Errorf(http.StatusBadRequest, "split %q is not known (creator: split groups by the goroutine that created them)", sp)
	}
	var err error
	if q.rows, err = page.QueryRows(v, q.rows, "groups"); err != nil {
		return q, err
	}
	index := func(name string, def int) (int, error) { return page.QueryFile(v, name, def, n) }
	if q.file, err = index("file", 0); err != nil {
		return q, err
	}
	if q.base, err = index("base", 0); err != nil {
		return q, err
	}
	if q.target, err = index("target", n-1); err != nil {
		return q, err
	}
	return q, nil
}

// url renders the query back into a URL under path, with changes applied.
func (q goroutineQuery) url(path string, change func(v url.Values)) string {
	v := url.Values{}
	if q.mode != q.defaultMode {
		v.Set("mode", q.mode)
	}
	switch q.mode {
	case groups.ModeDump:
		if q.file != 0 {
			v.Set("file", strconv.Itoa(q.file))
		}
	case groups.ModeDiff:
		if q.base != 0 {
			v.Set("base", strconv.Itoa(q.base))
		}
		if q.target != q.files-1 {
			v.Set("target", strconv.Itoa(q.target))
		}
	}
	if q.split != "" {
		v.Set("split", q.split)
	}
	if q.rows != page.DefaultRows {
		if q.rows == 0 {
			v.Set("n", "all")
		} else {
			v.Set("n", strconv.Itoa(q.rows))
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

// artifacts returns the hashes of the base ("" outside a comparison) and the
// target shown.
func (q goroutineQuery) artifacts(rep *store.Report) (base, target string) {
	if q.mode == groups.ModeDiff {
		return rep.Artifacts[q.base].SHA256, rep.Artifacts[q.target].SHA256
	}
	return "", rep.Artifacts[q.file].SHA256
}
