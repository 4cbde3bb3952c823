package runs

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
)

// captureRequest is the body of POST /api/captures.
type captureRequest struct {
	Target   string `json:"target"`
	What     string `json:"what"`
	Interval string `json:"interval"`
	Count    int    `json:"count"`
}

// startCapture records and starts a capture series from a configured target.
func (s *Kind) startCapture(r *http.Request, req captureRequest) (string, error) {
	if s.Lab == nil {
		return "", lab.ErrDisabled
	}
	ts := lab.TargetSpec{Target: req.Target, What: req.What, Count: req.Count}
	if req.Interval != "" {
		d, err := time.ParseDuration(req.Interval)
		if err != nil {
			return "", serrors.Errorf(http.StatusBadRequest, "interval must be a duration such as 10s, not %q", req.Interval)
		}
		ts.Interval = d
	}
	id := store.NewID()
	_, err := s.Lab.StartCapture(id, ts, s.Targets, func(spec lab.Spec) error {
		return s.d.Store.CreateRun(r.Context(), &store.Run{ID: id, Workload: spec.Workload, Spec: page.MustJSON(spec), Owner: s.d.Owner,
			LeaseUntil: time.Now().Add(s.Lab.Lease())})
	})
	if err != nil {
		return "", err
	}
	s.d.Log.Info("capture started", "run", id, "target", ts.Target, "client", page.ClientIP(r))
	return id, nil
}

// CaptureAPI is POST /api/captures: 202 {"id","url"}.
func (s *Kind) CaptureAPI(w http.ResponseWriter, r *http.Request) error {
	var req captureRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 16<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return serrors.Errorf(http.StatusBadRequest, "the body must be JSON such as {\"target\":\"api\",\"what\":\"heap\",\"interval\":\"10s\",\"count\":10}: %v", err)
	}
	id, err := s.startCapture(r, req)
	if err != nil {
		return err
	}
	return page.JSON(w, http.StatusAccepted, map[string]string{"id": id, "url": page.RunURL(id)})
}

// CaptureForm is POST /captures from the dashboard: 303 to the run page.
func (s *Kind) CaptureForm(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		return serrors.Errorf(http.StatusBadRequest, "bad form: %v", err)
	}
	count, _ := strconv.Atoi(r.PostForm.Get("count"))
	id, err := s.startCapture(r, captureRequest{Target: r.PostForm.Get("target"), What: r.PostForm.Get("what"),
		Interval: r.PostForm.Get("interval"), Count: count})
	if err != nil {
		return err
	}
	http.Redirect(w, r, page.RunURL(id), http.StatusSeeOther)
	return nil
}
