package bundles

import (
	"context"

	"github.com/leakui/leakui/analyze/capture"
	"github.com/leakui/leakui/incident"
	"github.com/leakui/leakui/internal/pngchart"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/kind"
)

// Evidence judges capture bundles for an incident (kind.Evidencer) and draws,
// for a JVM, its resident set, its heap and the native memory NMT does not
// track, for a Go process its heap in use and goroutines, over the bundles'
// times.
func (s *Kind) Evidence(ctx context.Context, rep *store.Report, title, link string) (kind.Evidence, error) {
	cr, err := s.loadCaptureReport(ctx, rep)
	if err != nil {
		return kind.Evidence{}, err
	}
	return captureEvidence(cr, title, link), nil
}

// captureEvidence is what a capture report says on an incident's timeline.
func captureEvidence(cr *capture.Report, title, link string) kind.Evidence {
	ev := kind.Evidence{Evidence: incident.FromCapture(title, cr, link)}
	if cr.Go != nil {
		heap := pngchart.Series{Name: "Go heap in use (capture)", Unit: "bytes"}
		gs := pngchart.Series{Name: "goroutines (capture)", Unit: "count"}
		for _, sn := range cr.Go.Snapshots {
			if sn.Time.IsZero() {
				continue
			}
			if sn.HeapInuse >= 0 {
				heap.Points = append(heap.Points, pngchart.Point{T: sn.Time, V: float64(sn.HeapInuse)})
			}
			if sn.Goroutines >= 0 {
				gs.Points = append(gs.Points, pngchart.Point{T: sn.Time, V: float64(sn.Goroutines)})
			}
		}
		ev.Series = append(ev.Series, heap, gs)
		return ev
	}
	rss := pngchart.Series{Name: "JVM resident set (RSS)", Unit: "bytes"}
	heap := pngchart.Series{Name: "JVM heap resident", Unit: "bytes"}
	untracked := pngchart.Series{Name: "JVM native memory NMT does not track", Unit: "bytes"}
	for i, c := range cr.Captures {
		if c == nil || i >= len(cr.Bundles) {
			continue
		}
		sn := c.Snapshot(&cr.Bundles[i])
		if sn.Time.IsZero() {
			continue
		}
		if sn.RSS >= 0 {
			rss.Points = append(rss.Points, pngchart.Point{T: sn.Time, V: float64(sn.RSS)})
		}
		if sn.Heap >= 0 {
			heap.Points = append(heap.Points, pngchart.Point{T: sn.Time, V: float64(sn.Heap)})
		}
		if sn.RSS >= 0 && sn.Heap >= 0 && sn.NMT != nil {
			outside := sn.NMT.TotalCommitted
			for _, cat := range sn.NMT.Categories {
				if cat.Name == "Java Heap" {
					outside -= cat.Committed
				}
			}
			untracked.Points = append(untracked.Points, pngchart.Point{T: sn.Time, V: float64(sn.RSS - outside - sn.Heap)})
		}
	}
	ev.Series = append(ev.Series, untracked, rss, heap)
	return ev
}
