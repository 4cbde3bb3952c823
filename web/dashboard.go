package web

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/web/view"
)

// handleDashboard is GET /: the upload form and the recent reports.
func (s *Server) handleDashboard(w http.ResponseWriter, r *http.Request) error {
	recent, err := s.store.RecentReports(r.Context(), 20)
	if err != nil {
		return err
	}
	d := view.Dashboard{MaxUpload: analyze.FormatBytes(s.cfg.MaxUpload), Accepted: acceptedKinds}
	for _, rep := range recent {
		item := view.ReportListItem{URL: "/r/" + rep.ID, Title: rep.ID, Kind: rep.Kind, Created: formatTime(rep.CreatedAt)}
		if len(rep.Artifacts) > 0 {
			item.Title = rep.Artifacts[0].Name
		}
		item.Summary = summaryLine(rep.Kind, rep.Summary)
		d.Recent = append(d.Recent, item)
	}
	return s.render(w, r, http.StatusOK, view.Page{Title: "dashboard", Nav: "upload"}, view.DashboardPage(d))
}

// summaryLine renders a stored summary as one line for listings.
func summaryLine(kind string, raw json.RawMessage) string {
	if k, ok := reportKinds[kind]; ok && k.summary != nil {
		return k.summary(raw)
	}
	return ""
}

// profileSummaryLine shows the default sample type's total.
func profileSummaryLine(raw json.RawMessage) string {
	sum, ok := decodeProfileSummary(raw)
	if !ok {
		return ""
	}
	for _, st := range sum.SampleTypes {
		if st.Type == sum.Default {
			line := st.Type + " " + analyze.FormatValue(st.Total, st.Unit)
			if sum.Profiles > 0 {
				line += fmt.Sprintf(" (last of %d profiles)", sum.Profiles)
			}
			return line
		}
	}
	return ""
}
