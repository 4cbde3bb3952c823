package goroutines

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/goroutines"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/chart"
	"github.com/leakui/leakui/web/groups"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/view"
)

// showGoroutines renders /r/{id} for reports over goroutine dumps.
func (k *Kind) showGoroutines(w http.ResponseWriter, r *http.Request, rep *store.Report) error {
	q, err := parseGoroutineQuery(r, rep)
	if err != nil {
		return err
	}
	pg, err := k.goroutinePage(r, rep, q)
	if err != nil {
		return err
	}
	return k.d.Render(w, r, http.StatusOK, view.Page{Title: pg.Title, Nav: "reports", Description: chart.BannerDescription(pg.Verdict)}, view.GoroutineReportPage(pg))
}

// goroutinePage builds the page model.
func (k *Kind) goroutinePage(r *http.Request, rep *store.Report, q goroutineQuery) (view.GoroutineReport, error) {
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
	report, err := k.dumps.Report(r.Context(), base, target, q.split)
	if err != nil {
		return pg, err
	}
	if q.mode == groups.ModeDiff {
		pg.Title = fmt.Sprintf("Goroutines: %s → %s", rep.Artifacts[q.base].Name, rep.Artifacts[q.target].Name)
	} else {
		pg.Title = "Goroutines: " + rep.Artifacts[q.file].Name
	}
	pg.Modes = goroutineModeLinks(rep, q, path)
	names := [2]string{rep.Artifacts[q.base].Name, rep.Artifacts[q.target].Name}
	pg.Groups = groups.View(report, q.rows, q.url(path, func(v url.Values) { v.Set("n", "all") }), names)
	if q.mode == groups.ModeDump {
		if d, err := k.dumps.Load(r.Context(), target); err == nil && d.PerGoroutine() {
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
		links = append(links, view.Link{Label: a.Name, Current: q.mode == groups.ModeDump && q.file == i,
			URL: q.url(path, func(v url.Values) {
				switchTo(groups.ModeDump, v)
				if i > 0 {
					v.Set("file", strconv.Itoa(i))
				}
			})})
	}
	last := len(rep.Artifacts) - 1
	links = append(links, view.Link{Label: "diff", Current: q.mode == groups.ModeDiff && q.base == 0 && q.target == last,
		URL: q.url(path, func(v url.Values) { switchTo(groups.ModeDiff, v) })})
	return links
}
