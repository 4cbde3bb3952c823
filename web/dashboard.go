package web

import (
	"encoding/json"
	"net/http"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/view"
)

// handleDashboard is GET /: the upload form and the recent reports.
func (s *Server) handleDashboard(w http.ResponseWriter, r *http.Request) error {
	// Report ids are the secret that protects reports: list them only to those
	// who may see them all.
	var err error
	listing := s.authorized(r)
	d := view.Dashboard{MaxUpload: analyze.FormatBytes(s.cfg.MaxUpload), Accepted: s.kinds.Accepted(),
		SignIn: !listing, Auth: s.cfg.Token != "", Log: s.logs.UploadForm()}
	if listing {
		if d.Reports, err = s.reportList(r); err != nil {
			return err
		}
	}
	if d.Lab, err = s.labBlock(r, listing); err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, view.Page{Title: "dashboard", Nav: "upload"}, view.DashboardPage(d))
}

// summaryLine renders a stored summary as one line for listings.
func (s *Server) summaryLine(kind string, raw json.RawMessage) string {
	if k, ok := s.kinds.For(kind); ok {
		return k.Summary(raw)
	}
	return ""
}

// labBlock fills the dashboard's lab section.
func (s *Server) labBlock(r *http.Request, listing bool) (view.RunList, error) {
	l := view.RunList{Enabled: s.lab != nil,
		CheckpointVariants: []string{"leaky", "pr1674", "reset", "guard-start"}, Modes: []string{"active", "standby"},
		Scenarios:        []string{"storm", "steady", "reuse"},
		RecoveryVariants: lab.RecoveryVariants(), Codecs: []string{"gzip", "zstd", "snappy", "lz4", "none"}}
	if !l.Enabled || !listing {
		return l, nil
	}
	l.Targets = s.cfg.Targets.Names()
	for _, p := range lab.Presets {
		desc := p.Description
		if ok, why := lab.JVMAvailable(); p.Spec.Variant == lab.VariantJVM && !ok {
			desc += " — unavailable: " + why
		}
		l.Presets = append(l.Presets, view.Preset{Name: p.Name, Description: desc})
	}
	runs, err := s.store.RecentRuns(r.Context(), 20)
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
