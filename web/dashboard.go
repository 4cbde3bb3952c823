package web

import (
	"encoding/json"
	"net/http"

	"github.com/leakui/leakui/analyze"
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
	if d.Lab, err = s.runs.LabBlock(r, listing); err != nil {
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
