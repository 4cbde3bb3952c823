package profiles

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/view"
)

// diffBanner is the verdict of a diff: how the total moved and the largest change.
func diffBanner(d view.DiffTable) *view.Banner {
	b := &view.Banner{State: "unchanged", Class: "good"}
	label := "unchanged"
	switch {
	case d.Grew:
		b.State, label, b.Class = "grew", "grew "+d.Change, "warn"
	case d.Change != "0" && d.Change != "0 B":
		b.State, label = "shrank", "shrank "+d.Change
	}
	b.Badges = []view.Badge{{Label: label, Class: b.Class, TestID: "verdict-state"}}
	b.Reason = fmt.Sprintf("Total %s went from %s to %s (%s, %s) between %s and %s", d.SampleType, d.Base, d.Target, d.Change, d.Ratio, d.BaseName, d.TargetName)
	if len(d.Rows) > 0 {
		b.Reason += fmt.Sprintf("; the largest change is %s (%s flat).", d.Rows[0].Name, d.Rows[0].Flat)
	} else {
		b.Reason += "."
	}
	b.Numbers = []view.Pair{{Label: "base", Value: d.Base}, {Label: "target", Value: d.Target}, {Label: "change", Value: d.Change + " " + d.Ratio}}
	return b
}

// topBanner is the headline of one profile: its total and its largest function.
func topBanner(t view.TopTable) *view.Banner {
	b := &view.Banner{State: "profile", Badges: []view.Badge{{Label: "one profile", TestID: "verdict-state"}}}
	b.Reason = fmt.Sprintf("One profile: %s totals %s.", t.SampleType, t.Total)
	if len(t.Rows) > 0 {
		r := t.Rows[0]
		b.Reason = fmt.Sprintf("One profile: %s totals %s; the largest is %s with %s flat (%s). A single profile shows where memory is, not whether it grows: upload 8–12 snapshots over time for a leak verdict.",
			t.SampleType, t.Total, r.Name, r.Flat, r.FlatPct)
		b.Numbers = []view.Pair{{Label: "total", Value: t.Total}, {Label: "functions", Value: analyze.FormatCount(int64(t.All))}}
	}
	return b
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

// captureReport makes the series report of a live target's snapshots: a diff of
// two, a series of more. The goroutineleak captures taken beside goroutine
// snapshots are not part of it (the run page shows them).
func (s *Kind) CaptureReport(ctx context.Context, runID string, spec lab.Spec, all []store.RunArtifact) (string, error) {
	var arts []store.RunArtifact
	for _, a := range all {
		if a.Role != lab.RoleGoroutineLeak {
			arts = append(arts, a)
		}
	}
	if len(arts) < 2 {
		return "", nil
	}
	refs := make([]store.Upload, len(arts))
	for i, a := range arts {
		refs[i] = store.Upload{Name: a.Name, SHA256: a.SHA256, Label: spec.Variant}
	}
	last, err := s.loadProfile(ctx, arts[len(arts)-1].SHA256)
	if err != nil {
		return "", err
	}
	sum := profileSummaryOf(last)
	kind := modeDiff
	if len(arts) > 2 {
		kind, sum.Profiles = seriesKind, len(arts)
	}
	rep := &store.Report{Kind: kind, RunID: runID, Params: page.MustJSON(map[string]any{"ordered_by": "capture time", "target": spec.Variant}), Summary: page.MustJSON(sum)}
	if err := s.d.Store.CreateReport(ctx, rep, refs); err != nil {
		return "", err
	}
	return rep.ID, nil
}
