package watch

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/watch"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
	"github.com/leakui/leakui/web/view"
)

// statuses lists the watches; none without a Source.
func (rs Resource) statuses(ctx context.Context) ([]watch.Status, error) {
	if rs.Source == nil {
		return nil, nil
	}
	return rs.Source.Statuses(ctx)
}

// status finds one watch; an unknown name is a 404.
func (rs Resource) status(ctx context.Context, name string) (watch.Status, error) {
	all, err := rs.statuses(ctx)
	if err != nil {
		return watch.Status{}, err
	}
	for _, st := range all {
		if st.Name == name {
			return st, nil
		}
	}
	return watch.Status{}, serrors.Errorf(http.StatusNotFound, "no watch is named %q", page.Short(page.CleanText(name, 200), 80))
}

// analyzed is a watch's analysis, or nil with the reason it is not there: a
// busy memory budget or a request that ended fails the request, any other
// error is shown with the watch.
func (rs Resource) analyzed(ctx context.Context, st watch.Status) (*Analysis, string, error) {
	if st.Snapshots == 0 {
		return nil, "", nil
	}
	a, err := rs.analysis(ctx, st)
	if err == nil {
		return a, "", nil
	}
	if errors.Is(err, analyze.ErrBusy) || ctx.Err() != nil {
		return nil, "", err
	}
	return nil, "the snapshots could not be analyzed: " + page.Short(page.CleanText(err.Error(), 400), 300), nil
}

// list is /watch: every watch with its verdict, sparkline and last scrape.
func (rs Resource) list(w http.ResponseWriter, r *http.Request) error {
	all, err := rs.statuses(r.Context())
	if err != nil {
		return err
	}
	if page.WantsJSON(r) {
		return rs.writeListJSON(w, r, all)
	}
	// The most severe verdicts first, then by name.
	all = slices.Clone(all)
	slices.SortStableFunc(all, func(a, b watch.Status) int { return b.Verdict.Severity() - a.Verdict.Severity() })
	v := listView{Refresh: 30}
	for i, st := range all {
		a, why, err := rs.analyzed(r.Context(), st)
		if err != nil {
			return err
		}
		v.Rows = append(v.Rows, rowOf(st, a, why))
		if i == 0 || refreshOf(st.Every) < v.Refresh {
			v.Refresh = refreshOf(st.Every)
		}
	}
	desc := page.OneOrMany(len(all), "1 watch", strconv.Itoa(len(all))+" watches")
	if n := leaks(all); n > 0 {
		desc += ", " + page.OneOrMany(n, "1 suspects a leak", strconv.Itoa(n)+" suspect a leak")
	}
	return rs.render(w, r, http.StatusOK, view.Page{Title: "watches", Description: desc}, listPage(v))
}

// leaks counts the watches that suspect a leak.
func leaks(all []watch.Status) int {
	n := 0
	for _, st := range all {
		if st.Verdict == watch.Leak {
			n++
		}
	}
	return n
}

// listJSON is /watch.json.
func (rs Resource) listJSON(w http.ResponseWriter, r *http.Request) error {
	all, err := rs.statuses(r.Context())
	if err != nil {
		return err
	}
	return rs.writeListJSON(w, r, all)
}

func (rs Resource) writeListJSON(w http.ResponseWriter, r *http.Request, all []watch.Status) error {
	out := listJSON{Watches: []statusJSON{}}
	for _, st := range all {
		a, why, err := rs.analyzed(r.Context(), st)
		if err != nil {
			return err
		}
		out.Watches = append(out.Watches, statusJSONOf(r, st, a, why))
	}
	return page.JSON(w, http.StatusOK, out)
}

// show is /watch/{name} and its JSON twin /watch/{name}.json.
func (rs Resource) show(w http.ResponseWriter, r *http.Request) error {
	name := page.URLParam(r, "name")
	asJSON := page.WantsJSON(r)
	st, err := rs.status(r.Context(), name)
	// A watch's name may end in ".json" itself: its page wins over the
	// JSON twin of the name without it.
	if n, ok := strings.CutSuffix(name, ".json"); ok && err != nil {
		st, err = rs.status(r.Context(), n)
		asJSON = true
	}
	if err != nil {
		return err
	}
	a, why, err := rs.analyzed(r.Context(), st)
	if err != nil {
		return err
	}
	deliveries, err := rs.Source.Deliveries(r.Context(), st.Name, MaxDeliveries)
	if err != nil {
		return err
	}
	if asJSON {
		return page.JSON(w, http.StatusOK, watchJSONOf(r, st, a, why, deliveries))
	}
	v := pageOf(st, a, why, deliveries)
	desc := "Watch " + st.Name + ": " + v.Row.VerdictText
	if st.Suspect != "" {
		desc += ", " + st.Suspect
		if v.Row.Growth != "" {
			desc += " " + v.Row.Growth
		}
	}
	return rs.render(w, r, http.StatusOK, view.Page{Title: "watch " + st.Name, Description: desc}, watchPage(v))
}

// download is /watch/{name}/snapshots/{tick}/{profile}: one profile of one
// snapshot as the target served it, for go tool pprof.
func (rs Resource) download(w http.ResponseWriter, r *http.Request) error {
	st, err := rs.status(r.Context(), page.URLParam(r, "name"))
	if err != nil {
		return err
	}
	tick, err := strconv.ParseInt(page.URLParam(r, "tick"), 10, 64)
	if err != nil {
		return serrors.Errorf(http.StatusNotFound, "a snapshot is named by its tick in Unix milliseconds")
	}
	profile := page.URLParam(r, "profile")
	if _, ok := profileOf(store.WatchSnapshot{}, profile); !ok {
		return serrors.Errorf(http.StatusNotFound, "a snapshot holds the profiles heap, goroutine and goroutineleak, or a JVM's bundle")
	}
	snaps, err := rs.Source.WatchSnapshots(r.Context(), st.Name)
	if err != nil {
		return err
	}
	// The store reads a watch's snapshots all at once: what they hold is
	// charged while the one asked for is written.
	var held int64
	for _, s := range snaps {
		held += s.Size()
	}
	budget := rs.Budget()
	defer budget.Release()
	if err := budget.Charge(held); err != nil {
		return err
	}
	for _, s := range snaps {
		if s.Tick.UnixMilli() != tick {
			continue
		}
		b, _ := profileOf(s, profile)
		if len(b) == 0 {
			break
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		ext := ".pb.gz"
		if profile == bundle {
			ext = ".tar.gz"
		}
		w.Header().Set("Content-Disposition", `attachment; filename="`+st.Name+"-"+s.Tick.UTC().Format("20060102T150405Z")+"-"+profile+ext+`"`)
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		_, err := w.Write(b)
		return err
	}
	return serrors.Errorf(http.StatusNotFound, "watch %s holds no %s profile taken at the tick %s", st.Name, profile,
		time.UnixMilli(tick).UTC().Format(time.RFC3339))
}
