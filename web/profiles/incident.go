package profiles

import (
	"context"

	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/incident"
	"github.com/leakui/leakui/internal/pngchart"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/groups"
	"github.com/leakui/leakui/web/kind"
)

// Evidence judges a profile report for an incident (kind.Evidencer): a series
// of heap or goroutine profiles by its series verdict, with its totals over
// time; one goroutine profile by its goroutines (a goroutineleak profile proves
// them leaked); any other profile, and a comparison, as evidence without a
// verdict.
func (s *Kind) Evidence(ctx context.Context, rep *store.Report, title, link string) (kind.Evidence, error) {
	switch rep.Kind {
	case modeSeries:
		return s.seriesEvidence(ctx, rep, title, link)
	case modeSingle:
		ps, err := s.loadProfileSet(kind.DefaultRequest(ctx, rep), rep)
		if err != nil {
			return kind.Evidence{}, err
		}
		defer ps.release()
		if !ps.shown().IsGoroutineProfile() {
			return kind.NoVerdict("profile", title, s.Summary(rep.Summary), link), nil
		}
		var notices []string
		_, _, _, gr, err := s.goroutineProfileReport(ctx, ps, &notices)
		if err != nil {
			return kind.Evidence{}, err
		}
		return groups.Evidence(gr, title, link), nil
	}
	return kind.NoVerdict("profile comparison", title, s.Summary(rep.Summary), link), nil
}

// seriesEvidence judges a series of profiles (heap or goroutine) and draws
// its totals.
func (s *Kind) seriesEvidence(ctx context.Context, rep *store.Report, title, link string) (kind.Evidence, error) {
	ps, err := s.loadProfileSet(kind.DefaultRequest(ctx, rep), rep)
	if err != nil {
		return kind.Evidence{}, err
	}
	defer ps.release()
	var notices []string
	sr, err := ps.profileSeries(&notices)
	if err != nil {
		return kind.Evidence{}, err
	}
	name, domain := "heap series", incident.Heap
	if ps.shown().IsGoroutineProfile() {
		name, domain = "goroutine series", incident.Goroutines
	}
	ev := kind.Evidence{Evidence: incident.FromSeries(name, title, domain, sr, link)}
	ev.Series = append(ev.Series, seriesTotals(name+" "+sr.SampleType, sr))
	return ev, nil
}

// seriesTotals is a series analysis' totals over its snapshots' times.
func seriesTotals(name string, sr *series.Report) pngchart.Series {
	out := pngchart.Series{Name: name, Unit: sr.Unit}
	for _, sn := range sr.Snapshots {
		if !sn.Time.IsZero() {
			out.Points = append(out.Points, pngchart.Point{T: sn.Time, V: float64(sn.Total)})
		}
	}
	return out
}
