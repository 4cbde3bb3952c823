package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
)

// classify detects the kind of every received file from its content (see
// analyze.Sniff: UTF-16 is read as UTF-8, a dump far into a log is found).
func (s *Server) classify(files []*received) error {
	for _, f := range files {
		if f.size == 0 {
			return serrors.Errorf(http.StatusBadRequest, "%s is empty", f.name)
		}
		fh, err := os.Open(f.path)
		if err != nil {
			return err
		}
		rc, _, err := analyze.Decompress(fh, s.cfg.MaxDecompressed)
		if err != nil {
			fh.Close()
			return fmt.Errorf("%s: %w", f.name, err)
		}
		f.det, err = analyze.Sniff(rc)
		rc.Close()
		fh.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	return nil
}

// reportPlan is what an upload becomes: a report of one kind over the files.
type reportPlan struct {
	kind    string
	params  map[string]any
	summary any
	// background stores the report as analyzing, its analysis queued
	// (heapDumpJobs) to complete the summary after the upload has answered.
	background bool
}

// plan validates the files for the report they make and computes its summary. A
// file that is not of a kind leakui analyzes is refused, naming what was detected.
// It may reorder form.files (profiles go by the time they were taken).
func (s *Server) plan(ctx context.Context, form *uploadForm) (*reportPlan, error) {
	kind := form.files[0].det.Kind
	for _, f := range form.files {
		if _, ok := s.kinds.planners[f.det.Kind]; !ok {
			return nil, fmt.Errorf("%w: %s: detected %s; leakui accepts %s", analyze.ErrUnsupportedKind,
				f.name, f.det, s.kinds.acceptedNames())
		}
		if f.det.Kind != kind {
			return nil, fmt.Errorf("%w: %s is a %s but %s is a %s; upload files of one kind together",
				analyze.ErrMismatch, form.files[0].name, kind.Description(), f.name, f.det.Kind.Description())
		}
	}
	form.ctx = ctx
	return s.kinds.planners[kind](s, form)
}

// planProfiles makes a profile report of one file, a diff of two, a series of more.
// Several profiles must be of one type; they are ordered by the time each was
// taken when all say it, else kept in upload order.
func (s *Server) planProfiles(form *uploadForm) (*reportPlan, error) {
	profiles := make([]*pprof.Profile, len(form.files))
	for i, f := range form.files {
		p, err := s.loadReceivedProfile(f)
		if err != nil {
			return nil, err
		}
		if i > 0 && !profiles[0].SameType(p) {
			return nil, fmt.Errorf("%w: %s measures %s but %s measures %s; upload profiles of one type together",
				analyze.ErrMismatch, form.files[0].name, profiles[0].TypeNames(), f.name, p.TypeNames())
		}
		profiles[i] = p
	}
	timed := true
	for _, p := range profiles {
		timed = timed && !p.Time().IsZero()
	}
	if timed {
		order := make([]int, len(profiles))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return profiles[order[a]].Time().Before(profiles[order[b]].Time()) })
		files := make([]*received, len(order))
		sorted := make([]*pprof.Profile, len(order))
		for i, k := range order {
			files[i], sorted[i] = form.files[k], profiles[k]
		}
		form.files, profiles = files, sorted
	}
	last := profiles[len(profiles)-1]
	sum := profileSummaryOf(last)
	kind := modeSingle
	switch {
	case len(profiles) == 2:
		kind = modeDiff
	case len(profiles) > 2:
		kind = seriesKind
		sum.Profiles = len(profiles)
		sum.Verdict = seriesVerdictOf(form.files, profiles)
	}
	return &reportPlan{kind: kind, params: map[string]any{"ordered_by": orderedBy(timed, len(profiles))}, summary: sum}, nil
}

func orderedBy(timed bool, n int) string {
	switch {
	case n == 1:
		return ""
	case timed:
		return "profile time"
	}
	return "upload order"
}

// loadReceivedProfile parses a received file as a profile and caches it.
func (s *Server) loadReceivedProfile(f *received) (*pprof.Profile, error) {
	fh, err := os.Open(f.path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b := s.analysisBudget()
	defer b.Release()
	p, err := pprof.Open(pprof.Reader(fh), pprof.Options{Limit: s.cfg.MaxDecompressed, Budget: b})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.name, err)
	}
	s.profiles.add(f.sha256, p)
	return p, nil
}

// ingest turns a received upload into a stored report: classify, plan, store, all
// or nothing.
func (s *Server) ingest(ctx context.Context, form *uploadForm) (*store.Report, error) {
	if s.cfg.DiskQuota > 0 || s.cfg.ClientDiskQuota > 0 {
		// Before the analysis too, so an upload past a quota costs no more.
		if err := s.checkQuota(ctx, form); err != nil {
			return nil, err
		}
	}
	if err := s.classify(form.files); err != nil {
		return nil, err
	}
	pl, err := s.plan(ctx, form)
	if err != nil {
		return nil, err
	}
	params, err := json.Marshal(pl.params)
	if err != nil {
		return nil, err
	}
	summary, err := json.Marshal(pl.summary)
	if err != nil {
		return nil, err
	}
	rep := &store.Report{Kind: pl.kind, Params: params, Summary: summary, Uploader: form.client}
	if pl.background {
		rep.Status = store.ReportAnalyzing
		rep.Owner, rep.LeaseUntil = s.owner, time.Now().Add(heapJobLease)
		queued, err := s.heapJobs.reserve(form.client)
		if err != nil {
			return nil, err
		}
		defer queued()
	}
	uploads := make([]store.Upload, len(form.files))
	for i, f := range form.files {
		path := f.path
		uploads[i] = store.Upload{
			Name: f.name, Label: form.label, SHA256: f.sha256, Size: f.size,
			Kind: string(f.det.Kind), Format: f.det.FullFormat(),
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
	if pl.background {
		s.heapJobs.enqueue(rep.ID, form.client)
	}
	return rep, nil
}

// uploadResponse is the JSON answer to POST /api/artifacts.
type uploadResponse struct {
	Artifacts []uploadedArtifact `json:"artifacts"`
	ReportID  string             `json:"report_id"`
	// ReportURL is absolute: -base-url, else the request's scheme and host.
	ReportURL string `json:"report_url"`
	// Verdict is the report's verdict when it has one ("leak", "no leak", …).
	Verdict string `json:"verdict,omitempty"`
	// Status is "analyzing" for a report analyzed in the background (a JVM heap
	// dump; the answer is then 202 Accepted): its page and JSON tell when it is
	// done.
	Status string `json:"status,omitempty"`
}

type uploadedArtifact struct {
	ID     string `json:"id"`
	SHA256 string `json:"sha256"`
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Format string `json:"format,omitempty"`
	// Encoding is "UTF-16LE" or "UTF-16BE" for a file transcoded to UTF-8.
	Encoding string `json:"encoding,omitempty"`
	// Prefix names the line prefix stripped from a dump ("kubectl logs --timestamps").
	Prefix string `json:"prefix,omitempty"`
	// SkippedLines and SkippedBytes are the log before a dump found far into a file.
	SkippedLines int64  `json:"skipped_lines,omitempty"`
	SkippedBytes int64  `json:"skipped_bytes,omitempty"`
	Size         int64  `json:"size"`
	URL          string `json:"url"`
}

// handleUploadAPI is POST /api/artifacts: 201 with the artifacts and the report URL.
func (s *Server) handleUploadAPI(w http.ResponseWriter, r *http.Request) error {
	form, err := s.receiveUpload(w, r)
	if err != nil {
		return err
	}
	defer form.remove()
	rep, err := s.ingest(r.Context(), form)
	if err != nil {
		return err
	}
	resp := uploadResponse{ReportID: rep.ID, ReportURL: page.Absolute(r, page.ReportURL(rep.ID)), Verdict: rep.Headline.Verdict}
	for _, f := range form.files {
		resp.Artifacts = append(resp.Artifacts, uploadedArtifact{
			ID: f.sha256, SHA256: f.sha256, Name: f.name, Kind: string(f.det.Kind), Format: f.det.Format,
			Encoding: f.det.Encoding, Prefix: f.det.Prefix, SkippedLines: f.det.SkippedLines, SkippedBytes: f.det.Skipped,
			Size: f.size, URL: page.ArtifactURL(f.sha256),
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
	form, err := s.receiveUpload(w, r)
	if err != nil {
		return err
	}
	defer form.remove()
	rep, err := s.ingest(r.Context(), form)
	if err != nil {
		return err
	}
	http.Redirect(w, r, page.ReportURL(rep.ID), http.StatusSeeOther)
	return nil
}
