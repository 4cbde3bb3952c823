package logs

import (
	"context"
	"time"

	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/incident"
	"github.com/leakui/leakui/internal/pngchart"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/kind"
)

// Evidence judges a log's pairs for an incident (kind.Evidencer), counted
// with the report's own parameters, and draws its ERROR and WARN lines a
// minute and what each pair still had open, over its buckets.
func (k *Kind) Evidence(ctx context.Context, rep *store.Report, title, link string) (kind.Evidence, error) {
	_, lr, err := k.logReportOf(kind.DefaultRequest(ctx, rep), rep)
	if err != nil {
		return kind.Evidence{}, err
	}
	return logEvidence(lr, title, link), nil
}

// logEvidence is what a log report says on an incident's timeline.
func logEvidence(lr *logs.Report, title, link string) kind.Evidence {
	ev := kind.Evidence{Evidence: incident.FromLog(title, lr, link)}
	if len(lr.Buckets) == 0 || lr.Yearless || lr.BucketMillis <= 0 {
		return ev
	}
	minutes := float64(lr.BucketMillis) / float64(time.Minute/time.Millisecond)
	for _, level := range []int{1, 2} { // ERROR, WARN
		s := pngchart.Series{Name: logs.LevelNames[level] + " lines a minute (" + title + ")", Unit: "count"}
		any := false
		for _, b := range lr.Buckets {
			v := 0.0
			if level < len(b.Levels) {
				v = float64(b.Levels[level]) / minutes
				any = any || b.Levels[level] > 0
			}
			s.Points = append(s.Points, pngchart.Point{T: b.Start, V: v})
		}
		if any {
			ev.Series = append(ev.Series, s)
		}
	}
	for i, p := range lr.Pairs {
		if !p.Measurable {
			continue
		}
		s := pngchart.Series{Name: "still open: " + p.Name, Unit: "count"}
		for _, b := range lr.Buckets {
			if i < len(b.Open) {
				s.Points = append(s.Points, pngchart.Point{T: b.Start, V: float64(b.Open[i])})
			}
		}
		ev.Series = append(ev.Series, s)
	}
	return ev
}
