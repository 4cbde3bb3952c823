package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
)

// classify detects the kind of every received file from its content (see
// analyze.Sniff: UTF-16 is read as UTF-8, a dump far into a log is found).
func (s uploads) classify(files []*kind.Received) error {
	for _, f := range files {
		if f.Size == 0 {
			return serrors.Errorf(http.StatusBadRequest, "%s is empty", f.Name)
		}
		fh, err := os.Open(f.Path)
		if err != nil {
			return err
		}
		rc, _, err := analyze.Decompress(fh, s.cfg.MaxDecompressed)
		if err != nil {
			fh.Close()
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		f.Detection, err = analyze.Sniff(rc)
		rc.Close()
		fh.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	return nil
}

// plan validates the files for the report they make and computes its summary. A
// file that is not of a kind leakui analyzes is refused, naming what was detected.
// It may reorder form.files (profiles go by the time they were taken).
func (s uploads) plan(ctx context.Context, form *kind.Upload) (*kind.Plan, error) {
	rk := form.Files[0].Detection.Kind
	for _, f := range form.Files {
		if _, ok := s.kinds.Planner(f.Detection.Kind); !ok {
			return nil, fmt.Errorf("%w: %s: detected %s; leakui accepts %s", analyze.ErrUnsupportedKind,
				f.Name, f.Detection, s.kinds.AcceptedNames())
		}
		if f.Detection.Kind != rk {
			return nil, fmt.Errorf("%w: %s is a %s but %s is a %s; upload files of one kind together",
				analyze.ErrMismatch, form.Files[0].Name, rk.Description(), f.Name, f.Detection.Kind.Description())
		}
	}
	form.Ctx = ctx
	k, _ := s.kinds.Planner(rk)
	return k.Plan(ctx, form)
}

// ingest turns a received upload into a stored report: classify, plan, store, all
// or nothing.
func (s uploads) ingest(ctx context.Context, form *kind.Upload) (*store.Report, error) {
	if s.cfg.DiskQuota > 0 || s.cfg.ClientDiskQuota > 0 {
		// Before the analysis too, so an upload past a quota costs no more.
		if err := s.checkQuota(ctx, form); err != nil {
			return nil, err
		}
	}
	if err := s.classify(form.Files); err != nil {
		return nil, err
	}
	pl, err := s.plan(ctx, form)
	if err != nil {
		return nil, err
	}
	params, err := json.Marshal(pl.Params)
	if err != nil {
		return nil, err
	}
	summary, err := json.Marshal(pl.Summary)
	if err != nil {
		return nil, err
	}
	rep := &store.Report{Kind: pl.Kind, Params: params, Summary: summary, Uploader: form.Client}
	if pl.Background {
		rep.Status = store.ReportAnalyzing
		queued, err := s.heapJobs.Reserve(form.Client)
		if err != nil {
			return nil, err
		}
		defer queued()
	}
	uploads := make([]store.Upload, len(form.Files))
	for i, f := range form.Files {
		path := f.Path
		uploads[i] = store.Upload{
			Name: f.Name, Label: form.Label, SHA256: f.SHA256, Size: f.Size,
			Kind: string(f.Detection.Kind), Format: f.Detection.FullFormat(),
			Open: func() (io.ReadCloser, error) { return os.Open(path) },
		}
	}
	stored, err := s.quotaCheck(ctx, form)
	if err != nil {
		return nil, err
	}
	err = s.store.CreateReport(ctx, rep, uploads)
	stored()
	if err != nil {
		return nil, err
	}
	if pl.Background {
		s.heapJobs.Enqueue(rep.ID, form.Client)
	}
	return rep, nil
}

// uploadResponse is the JSON answer to POST /api/artifacts.
type uploadResponse struct {
	Artifacts []kind.Artifact `json:"artifacts"`
	ReportID  string          `json:"report_id"`
	// ReportURL is absolute: -base-url, else the request's scheme and host.
	ReportURL string `json:"report_url"`
	// Verdict is the report's verdict when it has one ("leak", "no leak", …).
	Verdict string `json:"verdict,omitempty"`
	// Status is "analyzing" for a report analyzed in the background (a JVM heap
	// dump; the answer is then 202 Accepted): its page and JSON tell when it is
	// done.
	Status string `json:"status,omitempty"`
}

// handleUploadAPI is POST /api/artifacts: 201 with the artifacts and the report URL.
func (s *Server) handleUploadAPI(w http.ResponseWriter, r *http.Request) error {
	form, err := uploads{s}.receiveUpload(w, r)
	if err != nil {
		return err
	}
	defer form.Remove()
	rep, err := uploads{s}.ingest(r.Context(), form)
	if err != nil {
		return err
	}
	resp := uploadResponse{ReportID: rep.ID, ReportURL: page.Absolute(r, page.ReportURL(rep.ID)), Verdict: rep.Headline.Verdict}
	for _, f := range form.Files {
		resp.Artifacts = append(resp.Artifacts, kind.Artifact{
			ID: f.SHA256, SHA256: f.SHA256, Name: f.Name, Kind: string(f.Detection.Kind), Format: f.Detection.Format,
			Encoding: f.Detection.Encoding, Prefix: f.Detection.Prefix, SkippedLines: f.Detection.SkippedLines, SkippedBytes: f.Detection.Skipped,
			Size: f.Size, URL: page.ArtifactURL(f.SHA256),
		})
	}
	w.Header().Set("Location", resp.ReportURL)
	if rep.Status == store.ReportAnalyzing {
		resp.Status = rep.Status
		return page.JSON(w, http.StatusAccepted, resp)
	}
	return page.JSON(w, http.StatusCreated, resp)
}

// handleUploadForm is POST /upload from the HTML form: 303 to the report.
func (s *Server) handleUploadForm(w http.ResponseWriter, r *http.Request) error {
	form, err := uploads{s}.receiveUpload(w, r)
	if err != nil {
		return err
	}
	defer form.Remove()
	rep, err := uploads{s}.ingest(r.Context(), form)
	if err != nil {
		return err
	}
	http.Redirect(w, r, page.ReportURL(rep.ID), http.StatusSeeOther)
	return nil
}
