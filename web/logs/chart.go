package logs

import (
	"net/http"

	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/chart"
	"github.com/leakui/leakui/web/serrors"
)

// logChartImage answers a log report's still-open chart of one pair
// (open-N.svg), counted with the query's parameters as the page counts them.
func (k *Kind) logChartImage(w http.ResponseWriter, r *http.Request, rep *store.Report, file string) error {
	_, lr, err := k.logReportOf(r, rep)
	if err != nil {
		return err
	}
	if logTimesUsable(lr) && logNoMatch(lr) == "" {
		for _, c := range logOpenLineCharts(lr) {
			if file == c.id+".svg" {
				return chart.WriteSVG(w, c.chart)
			}
		}
	}
	return serrors.Errorf(http.StatusNotFound, "log report %s has no chart %q: a report with timed lines has open-1.svg… per measurable pair", rep.ID, file)
}
