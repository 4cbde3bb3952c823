package chart

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/web/view"
)

// SeriesClass colours a series verdict.
func SeriesClass(v series.Verdict) string {
	switch v {
	case series.Leak:
		return "bad"
	case series.Shrinking, series.Inconclusive:
		return "warn"
	}
	return "good"
}

// SeriesBanner is the verdict of a series report.
func SeriesBanner(rep *series.Report) *view.Banner {
	b := &view.Banner{State: string(rep.Verdict), Class: SeriesClass(rep.Verdict), Reason: rep.Reason}
	b.Badges = []view.Badge{{Label: rep.VerdictText, Class: b.Class, TestID: "verdict-state"}}
	t := rep.Total
	change := analyze.FormatSignedValue(t.Growth, rep.Unit)
	if t.First != 0 {
		change += fmt.Sprintf(" (%+.0f%%)", float64(t.Growth)/math.Abs(float64(t.First))*100)
	}
	b.Numbers = append(b.Numbers,
		view.Pair{Label: "total " + rep.SampleType, Value: analyze.FormatValue(t.First, rep.Unit) + " → " + analyze.FormatValue(t.Last, rep.Unit)},
		view.Pair{Label: "change", Value: change},
		view.Pair{Label: "snapshots", Value: SnapshotsText(rep)},
		view.Pair{Label: "leak suspects", Value: strconv.Itoa(len(rep.Suspects))})
	return b
}

// SnapshotsText is the number of snapshots and, when they have times, their span.
func SnapshotsText(rep *series.Report) string {
	s := strconv.Itoa(len(rep.Snapshots))
	if n := len(rep.Snapshots); n > 1 && !rep.Snapshots[0].Time.IsZero() && !rep.Snapshots[n-1].Time.IsZero() {
		s += " over " + rep.Snapshots[n-1].Time.Sub(rep.Snapshots[0].Time).Round(time.Second).String()
	}
	return s
}

// BannerDescription is a banner as one line for link previews: its badges, then
// its reason.
func BannerDescription(b *view.Banner) string {
	if b == nil {
		return ""
	}
	var words []string
	for _, badge := range b.Badges {
		words = append(words, badge.Label)
	}
	head := strings.Join(words, ", ")
	if b.Reason == "" {
		return head
	}
	return head + ": " + b.Reason
}
