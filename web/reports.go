package web

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
)

// reportsResource serves /r/{id} (the page) and /r/{id}.md (the Markdown summary).
type reportsResource struct{ s *Server }

// Routes mounts the report pages.
func (rs reportsResource) Routes() chi.Router {
	r := chi.NewRouter()
	r.Get("/{ref}", rs.s.handle(rs.show))
	r.Post("/{id}/compare", rs.s.handle(rs.s.profileKind.Compare))
	r.Get("/{id}/keys.csv", rs.s.handle(rs.s.logs.KeysCSV))
	r.Get("/{id}/charts/{chart}", rs.s.handle(rs.chartImage))
	r.Get("/{id}/flame.svg", rs.s.handle(rs.s.profileKind.FlameImage))
	r.Get("/{id}/dominators", rs.s.handle(rs.s.heapDumps.Dominators))
	r.Get("/{id}/dominators.json", rs.s.handle(rs.s.heapDumps.Dominators))
	r.Get("/{id}/paths/{n}", rs.s.handle(rs.s.heapDumps.Path))
	rs.s.heapDumps.Mount(r, rs.s.handle)
	return r
}

// show dispatches on the report kind and on the .md suffix.
func (rs reportsResource) show(w http.ResponseWriter, r *http.Request) error {
	ref := chi.URLParam(r, "ref")
	id, markdown := strings.CutSuffix(ref, ".md")
	rep, err := rs.s.store.Report(r.Context(), id)
	if err != nil {
		return err
	}
	release, err := rs.s.deps.ChargeView(rs.s.kinds.ViewCost(rep))
	if err != nil {
		return err
	}
	defer release()
	if markdown {
		md, err := rs.s.markdown(r, rep)
		if err != nil {
			return err
		}
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		_, err = w.Write(md)
		return err
	}
	if rep.Status != store.ReportReady {
		return rs.s.heapJobs.Page(w, r, rep)
	}
	k, ok := rs.s.kinds.For(rep.Kind)
	if !ok {
		return fmt.Errorf("report %s has unknown kind %q", rep.ID, rep.Kind)
	}
	return k.Page(w, r, rep)
}

// handleReportJSON is GET /api/reports/{id}: the report as JSON, honouring the same
// query parameters as the page.
func (s *Server) handleReportJSON(w http.ResponseWriter, r *http.Request) error {
	rep, err := s.store.Report(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	release, err := s.deps.ChargeView(s.kinds.ViewCost(rep))
	if err != nil {
		return err
	}
	defer release()
	doc := kind.ReportJSON{
		ID: rep.ID, Kind: rep.Kind, CreatedAt: rep.CreatedAt, URL: page.ReportURL(rep.ID), MarkdownURL: page.ReportMarkdownURL(rep.ID),
		Params: rep.Params, Summary: rep.Summary,
	}
	for _, a := range rep.Artifacts {
		doc.Artifacts = append(doc.Artifacts, kind.Artifact{ID: a.SHA256, SHA256: a.SHA256, Name: a.Name,
			Kind: a.Kind, Format: a.Format, Size: a.Size, URL: page.ArtifactURL(a.SHA256)})
	}
	if rep.Status != store.ReportReady {
		s.heapJobs.JSON(rep, &doc)
		return page.JSON(w, http.StatusOK, doc)
	}
	k, ok := s.kinds.For(rep.Kind)
	if !ok {
		return fmt.Errorf("report %s has unknown kind %q", rep.ID, rep.Kind)
	}
	if err := k.JSON(r, rep, &doc); err != nil {
		return err
	}
	return page.JSON(w, http.StatusOK, doc)
}

// markdown renders a report's Markdown summary for a ticket.
func (s *Server) markdown(r *http.Request, rep *store.Report) ([]byte, error) {
	if rep.Status != store.ReportReady {
		return withLabelLine(s.heapJobs.Markdown(r, rep), rep), nil
	}
	k, ok := s.kinds.For(rep.Kind)
	if !ok {
		return nil, fmt.Errorf("report %s has unknown kind %q", rep.ID, rep.Kind)
	}
	var b bytes.Buffer
	if err := k.Markdown(&b, r, rep); err != nil {
		return nil, err
	}
	return withLabelLine(b.Bytes(), rep), nil
}
