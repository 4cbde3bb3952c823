package web

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/serrors"
)

// Chart images: each chart as a standalone SVG at a stable URL, for the Markdown
// summaries, tickets and chat (GitHub and most trackers show an SVG image link
// inline). The same internal/linechart drawing as the page's no-JavaScript chart.

// chartImage is GET /r/{id}/charts/{chart}.svg: a series' totals, a run
// report's charts, or a log report's still-open charts (open-1.svg…).
func (rs reportsResource) chartImage(w http.ResponseWriter, r *http.Request) error {
	s := rs.s
	rep, err := s.store.Report(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	file := chi.URLParam(r, "chart")
	if rep.RunID != "" {
		return s.runs.RunChart(w, r, rep.RunID, file)
	}
	if k, ok := s.kinds.For(rep.Kind); ok {
		if c, ok := k.(kind.Charter); ok {
			return c.Chart(w, r, rep, file)
		}
	}
	return serrors.Errorf(http.StatusNotFound, "report %s has no chart %q: a series of three or more profiles has totals.svg", rep.ID, file)
}
