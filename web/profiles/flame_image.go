package profiles

import (
	"bytes"
	"net/http"
	"net/url"

	"github.com/go-chi/chi/v5"

	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
	"github.com/leakui/leakui/web/view"
)

// reportFlameImageURL is the URL of a profile report's flame graph as an SVG
// image, /r/{id}/flame.svg, with the page's query (sample type, filters, file or
// diff pair) so the image shows what the flame view does.
func reportFlameImageURL(ps *profileSet) string {
	return ps.q.url("/r/"+ps.rep.ID+"/flame.svg", func(v url.Values) { v.Del("view"); v.Del("fn") })
}

// handleReportFlameImage is GET /r/{id}/flame.svg: the flame graph of a profile
// report's file, or of its diff, as a standalone SVG image. It is built like the
// flame view (same cache, view slots and memory budget), so an image link costs
// no more than the page.
func (s *Kind) handleReportFlameImage(w http.ResponseWriter, r *http.Request) error {
	rep, err := s.d.Store.Report(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	if rep.Kind != modeSingle && rep.Kind != modeDiff && rep.Kind != modeSeries {
		return serrors.Errorf(http.StatusNotFound, "report %s is not a report over profiles: it has no flame graph", rep.ID)
	}
	ps, err := s.loadProfileSet(r, rep)
	if err != nil {
		return err
	}
	defer ps.release()
	var cut *pprof.FlameCut
	var caption string
	switch ps.q.mode {
	case modeSeries:
		return serrors.Errorf(http.StatusNotFound, "a series has no flame graph: its chart is /r/%s/charts/totals.svg, and mode=profile&file=N shows one file's flame graph", rep.ID)
	case modeDiff:
		if cut, err = s.diffFlameCut(r.Context(), ps, nil); err != nil {
			return err
		}
		caption = rep.Artifacts[ps.q.base].Name + " → " + rep.Artifacts[ps.q.target].Name
	default:
		if cut, err = s.flameCut(r.Context(), ps, ps.q.file, nil); err != nil {
			return err
		}
		caption = rep.Artifacts[ps.q.file].Name
	}
	caption = "Flame graph of " + caption + ", " + cut.SampleType
	f := flameView("flame-image", cut)
	boxes := f.Boxes
	f.Boxes = func(yield func(view.FlameBox) bool) { // XML has no place for control characters, even escaped
		for b := range boxes {
			b.Name, b.Title, b.Label = page.Display(b.Name), page.Display(b.Title), page.Display(b.Label)
			if !yield(b) {
				return
			}
		}
	}
	var buf bytes.Buffer
	if err := view.FlameImage(f, page.Display(caption)).Render(r.Context(), &buf); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "image/svg+xml; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, err = w.Write(page.ValidUTF8(buf.Bytes()))
	return err
}
