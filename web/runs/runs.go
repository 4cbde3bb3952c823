package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/chart"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
	"github.com/leakui/leakui/web/view"
)

// Routes mounts the pages under /runs.
func (s *Kind) Routes() chi.Router {
	r := chi.NewRouter()
	r.With(s.RunLimit).Post("/", s.d.Handle(s.startForm))
	r.Get("/compare", s.d.Handle(s.compare))
	r.Get("/compare.md", s.d.Handle(s.compareMarkdown))
	r.Get("/{id}", s.d.Handle(s.show))
	r.Get("/{id}.md", s.d.Handle(s.showRunMarkdown))
	r.Get("/{id}/charts/{chart}", s.d.Handle(s.handleRunChartImage))
	r.Post("/{id}/cancel", s.d.Handle(s.cancelForm))
	r.Post("/{id}/log", s.d.Handle(s.Logs.CountRunLog))
	return r
}

// APIRoutes mounts the JSON API under /api/runs.
func (s *Kind) APIRoutes() chi.Router {
	r := chi.NewRouter()
	r.With(s.RunLimit).Post("/", s.d.Handle(s.startAPI))
	r.Get("/compare", s.d.Handle(s.compareAPI))
	r.Get("/{id}", s.d.Handle(s.getAPI))
	r.Post("/{id}/cancel", s.d.Handle(s.cancelAPI))
	return r
}

// start records and starts a run; the lab must be on.
func (s *Kind) startRun(r *http.Request, spec lab.Spec) (string, error) {
	if s.Lab == nil {
		return "", lab.ErrDisabled
	}
	id := store.NewID()
	run, err := s.Lab.Start(id, spec, func(spec lab.Spec) error {
		return s.d.Store.CreateRun(r.Context(), &store.Run{
			ID: id, Workload: spec.Workload, Spec: page.MustJSON(spec), Owner: s.d.Owner,
			LeaseUntil: time.Now().Add(s.Lab.Lease()),
		})
	})
	if err != nil {
		return "", err
	}
	// The run's spec has its defaults filled in; the request's may not.
	s.d.Log.Info("run started", "run", id, "spec", run.Spec.Title(), "client", page.ClientIP(r))
	return id, nil
}

// runRequest is the body of POST /api/runs: a spec, or a preset by name.
type runRequest struct {
	lab.Spec
	Preset string `json:"preset"`
}

// startAPI is POST /api/runs: 202 {"id","url"}.
func (s *Kind) startAPI(w http.ResponseWriter, r *http.Request) error {
	var req runRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return serrors.Errorf(http.StatusBadRequest, "the body must be a JSON run such as {\"workload\":\"checkpoint\",\"variant\":\"leaky\",\"cycles\":30}: %v", err)
	}
	spec, err := specOf(req)
	if err != nil {
		return err
	}
	id, err := s.startRun(r, spec)
	if err != nil {
		return err
	}
	w.Header().Set("Location", page.RunURL(id))
	return page.JSON(w, http.StatusAccepted, map[string]string{"id": id, "url": page.RunURL(id)})
}

// startForm is POST /runs from the dashboard: 303 to the run's page.
func (s *Kind) startForm(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		return serrors.Errorf(http.StatusBadRequest, "bad form: %v", err)
	}
	f := r.PostForm
	num := func(k string) (int, error) {
		if f.Get(k) == "" {
			return 0, nil
		}
		n, err := strconv.Atoi(f.Get(k))
		if err != nil {
			return 0, serrors.Errorf(http.StatusBadRequest, "%s must be a number, not %q", k, f.Get(k))
		}
		return n, nil
	}
	req := runRequest{Preset: f.Get("preset"), Spec: lab.Spec{Workload: f.Get("workload"), Variant: f.Get("variant")}}
	if req.Preset == "" {
		var err error
		switch req.Workload {
		case lab.WorkloadCheckpoint:
			req.Mode, req.Scenario = f.Get("mode"), f.Get("scenario")
			if req.Cycles, err = num("cycles"); err == nil {
				req.Tasks, err = num("tasks")
			}
		case lab.WorkloadRecovery:
			req.Codec = f.Get("codec")
			if req.Segments, err = num("segments"); err == nil {
				req.Batches, err = num("batches")
			}
		}
		if err != nil {
			return err
		}
	}
	spec, err := specOf(req)
	if err != nil {
		return err
	}
	id, err := s.startRun(r, spec)
	if err != nil {
		return err
	}
	http.Redirect(w, r, page.RunURL(id), http.StatusSeeOther)
	return nil
}

// specOf resolves a preset or returns the spec as given.
func specOf(req runRequest) (lab.Spec, error) {
	if req.Preset == "" {
		return req.Spec, nil
	}
	p, ok := lab.PresetByName(req.Preset)
	if !ok {
		return lab.Spec{}, fmt.Errorf("%w: no preset %q", lab.ErrInvalidSpec, req.Preset)
	}
	return p.Spec, nil
}

// APIRun is a run as GET /api/runs/{id} answers it.
type APIRun struct {
	ID         string           `json:"id"`
	URL        string           `json:"url"`
	Workload   string           `json:"workload"`
	Spec       json.RawMessage  `json:"spec"`
	Status     string           `json:"status"`
	Verdict    string           `json:"verdict,omitempty"`
	Reason     string           `json:"reason,omitempty"`
	Details    []string         `json:"details,omitempty"`
	Error      string           `json:"error,omitempty"`
	Counters   map[string]int64 `json:"counters"`
	Step       int64            `json:"step"`
	Steps      int64            `json:"steps"`
	Snapshots  int              `json:"snapshots"`
	ReportURL  string           `json:"report_url,omitempty"`
	CreatedAt  time.Time        `json:"created_at"`
	FinishedAt *time.Time       `json:"finished_at,omitempty"`
	Progress   lab.Progress     `json:"progress"`
}

// runState is a run as the store has it, with the live progress when the run
// goes on in this server.
func (s *Kind) runState(r *http.Request, id string) (*store.Run, lab.Progress, error) {
	run, err := s.d.Store.Run(r.Context(), id)
	if err != nil {
		return nil, lab.Progress{}, err
	}
	var p lab.Progress
	if s.Lab != nil {
		if live, ok := s.Lab.Get(id); ok && run.Status == store.RunStatusRunning {
			p, _ = live.State()
			if p.Status != lab.StatusRunning {
				// The lab knows the end before the store has recorded it (the
				// run's report is being made): until then the run is running,
				// so that no reader sees an ended run without its report.
				p.Status, p.Verdict, p.Reason, p.Error = lab.StatusRunning, "", "", ""
			}
			return run, p, nil
		}
	}
	json.Unmarshal(run.Progress, &p)
	p.Status = run.Status
	if run.Status != store.RunStatusRunning {
		p.Verdict, p.Reason, p.Error = run.Verdict, run.Reason, run.Error
	}
	return run, p, nil
}

// getAPI is GET /api/runs/{id}.
func (s *Kind) getAPI(w http.ResponseWriter, r *http.Request) error {
	run, p, err := s.runState(r, chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	doc := APIRun{
		ID: run.ID, URL: page.RunURL(run.ID), Workload: run.Workload, Spec: run.Spec, Status: p.Status, Verdict: p.Verdict,
		Reason: p.Reason, Details: p.Details, Error: p.Error, Counters: p.Counters, Step: p.Step, Steps: p.Steps, Snapshots: p.Snapshots,
		CreatedAt: run.CreatedAt, Progress: p,
	}
	if run.ReportID != "" {
		doc.ReportURL = page.ReportURL(run.ReportID)
	}
	if !run.FinishedAt.IsZero() {
		doc.FinishedAt = &run.FinishedAt
	}
	if doc.Counters == nil {
		doc.Counters = map[string]int64{}
	}
	return page.JSON(w, http.StatusOK, doc)
}

// cancel stops a run running here.
func (s *Kind) cancelRun(r *http.Request, id string) error {
	run, err := s.d.Store.Run(r.Context(), id)
	if err != nil {
		return err
	}
	if run.Status != store.RunStatusRunning {
		return serrors.Errorf(http.StatusConflict, "run %s has already ended (%s)", id, run.Status)
	}
	if s.Lab == nil {
		return lab.ErrDisabled
	}
	if err := s.Lab.Cancel(id); err != nil {
		if errors.Is(err, lab.ErrNotRunning) {
			return serrors.Errorf(http.StatusConflict, "run %s runs on another server; cancel it there", id)
		}
		return err
	}
	s.d.Log.Info("run cancelled", "run", id, "client", page.ClientIP(r))
	return nil
}

// cancelAPI is POST /api/runs/{id}/cancel: 202 while the run stops.
func (s *Kind) cancelAPI(w http.ResponseWriter, r *http.Request) error {
	id := chi.URLParam(r, "id")
	if err := s.cancelRun(r, id); err != nil {
		return err
	}
	return page.JSON(w, http.StatusAccepted, map[string]string{"id": id, "status": "cancelling"})
}

// cancelForm is POST /runs/{id}/cancel from the page: 303 back to it.
func (s *Kind) cancelForm(w http.ResponseWriter, r *http.Request) error {
	id := chi.URLParam(r, "id")
	if err := s.cancelRun(r, id); err != nil {
		return err
	}
	http.Redirect(w, r, page.RunURL(id), http.StatusSeeOther)
	return nil
}

// show is GET /runs/{id}: live while running, the report once ended.
func (s *Kind) show(w http.ResponseWriter, r *http.Request) error {
	pg, err := s.runPage(r, chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	return s.d.Render(w, r, http.StatusOK, view.Page{Title: pg.Title, Nav: "runs", Description: chart.BannerDescription(pg.Banner)}, view.RunView(pg))
}

// compareIDs are the two runs of a comparison: ?a=ID&b=ID, or ?run=ID&run=ID
// from the dashboard.
func compareIDs(r *http.Request) ([2]string, error) {
	ids := [2]string{r.URL.Query().Get("a"), r.URL.Query().Get("b")}
	if picked := r.URL.Query()["run"]; ids[0] == "" && len(picked) == 2 {
		ids = [2]string{picked[0], picked[1]}
	}
	if ids[0] == "" || ids[1] == "" {
		return ids, serrors.Errorf(http.StatusBadRequest, "pick two runs to compare: /runs/compare?a=RUN&b=RUN")
	}
	return ids, nil
}

// compare is GET /runs/compare?a=ID&b=ID (or ?run=ID&run=ID from the dashboard).
func (s *Kind) compare(w http.ResponseWriter, r *http.Request) error {
	c, err := s.requestedComparison(r)
	if err != nil {
		return err
	}
	return s.d.Render(w, r, http.StatusOK, view.Page{Title: compareTitle(c), Nav: "runs", Description: compareDescription(c)}, view.CompareRunsPage(c))
}
