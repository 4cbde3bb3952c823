package groups

import (
	"github.com/leakui/leakui/analyze/goroutines"
	"github.com/leakui/leakui/incident"
	"github.com/leakui/leakui/internal/pngchart"
	"github.com/leakui/leakui/web/kind"
)

// Evidence is a goroutine report as an incident shows it (kind.Evidencer):
// its verdict, and its count at its time when it has one. Dumps and goroutine
// profiles share it.
func Evidence(gr *goroutines.Report, title, link string) kind.Evidence {
	ev := kind.Evidence{Evidence: incident.FromGoroutines(title, gr, link)}
	if gr.Time != nil && !gr.Time.IsZero() {
		ev.Series = []pngchart.Series{{Name: "goroutines (" + title + ")", Unit: "count", Points: []pngchart.Point{{T: *gr.Time, V: float64(gr.Total)}}}}
	}
	return ev
}
