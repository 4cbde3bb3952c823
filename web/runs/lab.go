package runs

import (
	"net/http"

	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/view"
)

// LabBlock fills the dashboard's lab section.
func (s *Kind) LabBlock(r *http.Request, listing bool) (view.RunList, error) {
	l := view.RunList{Enabled: s.Lab != nil,
		CheckpointVariants: []string{"leaky", "pr1674", "reset", "guard-start"}, Modes: []string{"active", "standby"},
		Scenarios:        []string{"storm", "steady", "reuse"},
		RecoveryVariants: lab.RecoveryVariants(), Codecs: []string{"gzip", "zstd", "snappy", "lz4", "none"}}
	if !l.Enabled || !listing {
		return l, nil
	}
	l.Targets = s.Targets.Names()
	for _, p := range lab.Presets {
		desc := p.Description
		if ok, why := lab.JVMAvailable(); p.Spec.Variant == lab.VariantJVM && !ok {
			desc += " — unavailable: " + why
		}
		l.Presets = append(l.Presets, view.Preset{Name: p.Name, Description: desc})
	}
	runs, err := s.d.Store.RecentRuns(r.Context(), 20)
	if err != nil {
		return l, err
	}
	for _, run := range runs {
		var spec lab.Spec
		page.Unmarshal(run.Spec, &spec)
		l.Recent = append(l.Recent, view.RunItem{ID: run.ID, URL: page.RunURL(run.ID), Title: spec.Title(), Status: run.Status,
			StatusClass: statusClass(run.Status), Verdict: run.Verdict, Created: page.FormatTime(run.CreatedAt)})
	}
	return l, nil
}
