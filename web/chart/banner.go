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
	case series.Shrinking, series.Steady:
		return "good"
	}
	return "" // inconclusive: no verdict, grey
}

// SeriesBanner is the verdict of a series report.
func SeriesBanner(rep *series.Report) *view.Banner {
	b := &view.Banner{State: string(rep.Verdict), Class: SeriesClass(rep.Verdict), Reason: rep.Reason}
	b.Badges = []view.Badge{{Label: rep.VerdictText, Class: b.Class, TestID: "verdict-state"}}
	b.Notes = append(b.Notes, rep.Warnings...)
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

// SnapshotsText is the number of snapshots and, when they have times, their
// span in the unit it needs: "12 snapshots over 318 ms", "3 snapshots over 21.4
// s", "8 snapshots over 14 min 5 s".
func SnapshotsText(rep *series.Report) string {
	n := len(rep.Snapshots)
	s := analyze.Plural(int64(n), "snapshot")
	if n > 1 && !rep.Snapshots[0].Time.IsZero() && !rep.Snapshots[n-1].Time.IsZero() {
		s += " over " + Span(rep.Snapshots[n-1].Time.Sub(rep.Snapshots[0].Time))
	}
	return s
}

// Span writes a duration in the unit its size needs: "318 ms", "21.4 s",
// "14 min 5 s", "3 h 12 min".
func Span(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	switch {
	case d < time.Second:
		return strconv.FormatInt(d.Round(time.Millisecond).Milliseconds(), 10) + " ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Round(100*time.Millisecond).Seconds(), 'f', -1, 64) + " s"
	case d < time.Hour:
		d = d.Round(time.Second)
		m, sec := int(d/time.Minute), int(d%time.Minute/time.Second)
		if sec == 0 {
			return fmt.Sprintf("%d min", m)
		}
		return fmt.Sprintf("%d min %d s", m, sec)
	}
	d = d.Round(time.Minute)
	h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
	if m == 0 {
		return fmt.Sprintf("%d h", h)
	}
	return fmt.Sprintf("%d h %d min", h, m)
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
