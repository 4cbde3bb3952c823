package logs

import (
	"context"
	"fmt"
	"net/http"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
	"github.com/leakui/leakui/web/view"
)

// logRunRole is the role of a run's own log among its artifacts.
const logRunRole = "log"

// logRunPreset is the preset a workload's log is counted with: its own leak's.
func logRunPreset(workload string) string {
	switch workload {
	case lab.WorkloadCheckpoint:
		return "samza-2785"
	case lab.WorkloadRecovery:
		return "kafka-3933"
	}
	return ""
}

// logRunArtifact returns a run's own log (the last one, if it stored several).
func (k *Kind) logRunArtifact(ctx context.Context, runID string) (store.RunArtifact, bool, error) {
	arts, err := k.d.Store.RunArtifacts(ctx, runID)
	if err != nil {
		return store.RunArtifact{}, false, err
	}
	var log store.RunArtifact
	found := false
	for _, a := range arts {
		if a.Role == logRunRole {
			log, found = a, true
		}
	}
	return log, found, nil
}

// runLogView counts a finished run's own log with its workload's preset, for
// the run page; nil when the run stored no log. A log that cannot be counted
// shows why instead of failing the page.
func (k *Kind) runLogView(ctx context.Context, runID string, spec lab.Spec) (*view.RunLogView, error) {
	a, ok, err := k.logRunArtifact(ctx, runID)
	if err != nil || !ok {
		return nil, err
	}
	p := Params{Preset: logRunPreset(spec.Workload)}
	v := &view.RunLogView{Name: a.Name, Size: analyze.FormatBytes(a.Size), Download: page.ArtifactURL(a.SHA256),
		Preset: p.Preset, PresetTitle: "none", Action: page.RunLogURL(runID)}
	if pr, ok := logs.LookupPreset(p.Preset); ok {
		v.PresetTitle = pr.Title
	}
	lr, err := k.logCountArtifacts(ctx, []store.ReportArtifact{{Artifact: store.Artifact{SHA256: a.SHA256}, Name: a.Name}}, p)
	if err != nil {
		_, msg := serrors.StatusOf(err)
		v.Error = "The log could not be counted: " + msg
		return v, nil
	}
	v.Lines = analyze.FormatCount(lr.Lines)
	for _, pr := range lr.Pairs {
		v.Pairs = append(v.Pairs, logPairView(pr, 0, "", ""))
	}
	inPair := map[logs.Pattern]bool{}
	for _, pr := range lr.Pairs {
		inPair[pr.Start], inPair[pr.Close] = true, true
	}
	for _, row := range logPatternRows(lr, false) {
		if !inPair[logs.Pattern{Text: row.Pattern, Regexp: row.Regexp}] {
			v.Patterns = append(v.Patterns, row)
		}
	}
	return v, nil
}

// handleCountRunLog is POST /runs/{id}/log: it makes a log report over the
// run's stored log, counted with the workload's preset, and redirects to it.
// The artifact is already stored; the report only refers to it.
func (k *Kind) handleCountRunLog(w http.ResponseWriter, r *http.Request) error {
	id := page.URLParam(r, "id")
	run, err := k.d.Store.Run(r.Context(), id)
	if err != nil {
		return err
	}
	a, ok, err := k.logRunArtifact(r.Context(), id)
	if err != nil {
		return err
	}
	if !ok {
		return serrors.Errorf(http.StatusNotFound, "run %s stored no log (it has not ended, or its workload wrote none)", id)
	}
	var spec lab.Spec
	page.Unmarshal(run.Spec, &spec)
	p := Params{Preset: logRunPreset(spec.Workload)}
	lr, err := k.logCountArtifacts(r.Context(), []store.ReportArtifact{{Artifact: store.Artifact{SHA256: a.SHA256}, Name: a.Name}}, p)
	if err != nil {
		return err
	}
	rep := &store.Report{Kind: kindLog, Params: page.MustJSON(p.asMap()), Summary: page.MustJSON(logSummaryOf(lr))}
	label := fmt.Sprintf("log of run %s (%s)", id, spec.Title())
	if err := k.d.Store.CreateReport(r.Context(), rep, []store.Upload{{Name: a.Name, SHA256: a.SHA256, Label: page.CleanText(label, 200)}}); err != nil {
		return err
	}
	http.Redirect(w, r, page.ReportURL(rep.ID), http.StatusSeeOther)
	return nil
}
