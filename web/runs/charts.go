package runs

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/leakui/leakui/internal/linechart"
	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/chart"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
)

// Chart images: each chart as a standalone SVG at a stable URL, for the Markdown
// summaries, tickets and chat (GitHub and most trackers show an SVG image link
// inline). The same internal/linechart drawing as the page's no-JavaScript chart.

// handleRunChartImage is GET /runs/{id}/charts/{chart}.svg.
func (s *Kind) handleRunChartImage(w http.ResponseWriter, r *http.Request) error {
	return s.RunChart(w, r, chi.URLParam(r, "id"), chi.URLParam(r, "chart"))
}

// RunChart writes the chart file of run runID as SVG: the chart of a run's
// report, and of the reports its captures made, is the run's.
func (s *Kind) RunChart(w http.ResponseWriter, r *http.Request, runID, file string) error {
	c, err := s.runChart(r, runID, file)
	if err != nil {
		return err
	}
	return chart.WriteSVG(w, c)
}

// runChart is one of a run's charts by name (goroutines, memory, open).
func (s *Kind) runChart(r *http.Request, runID, file string) (linechart.Chart, error) {
	name, ok := strings.CutSuffix(file, ".svg")
	if !ok {
		return linechart.Chart{}, store.ErrNotFound
	}
	run, p, err := s.runState(r, runID)
	if err != nil {
		return linechart.Chart{}, err
	}
	var spec lab.Spec
	page.Unmarshal(run.Spec, &spec)
	if spec.Workload == lab.WorkloadCapture {
		return linechart.Chart{}, serrors.Errorf(http.StatusNotFound, "a capture run has no charts")
	}
	for _, cs := range runChartSpecs {
		if cs.id == name {
			return runLineChart(p, cs.title, cs.unit, cs.series), nil
		}
	}
	return linechart.Chart{}, serrors.Errorf(http.StatusNotFound, "no chart %q: a run has goroutines, memory and open", name)
}
