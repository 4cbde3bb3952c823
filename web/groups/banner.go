package groups

import (
	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/goroutines"
	"github.com/leakui/leakui/web/view"
)

// Banner is the verdict of goroutine groups: the analysis's own verdict and
// headline (goroutines.Report.Headline: a crash and its panicking group, the
// runtime's proof of leaked goroutines, the growth of a comparison, or the count
// and the largest group by count), coloured red for a crash, a proof or growth.
func Banner(g view.GoroutineGroups) *view.Banner {
	b := &view.Banner{State: g.Verdict, Reason: g.Headline}
	label := analyze.Plural(int64(g.Total), "goroutine")
	switch g.Verdict {
	case goroutines.VerdictCrash:
		b.Class = "bad"
		if g.Panic != nil {
			label = g.Panic.Kind
		}
	case goroutines.VerdictLeak:
		b.Class, label = "bad", "proven leaked: "+analyze.FormatCount(int64(g.Leaked))
		b.Numbers = []view.Pair{{Label: "proven leaked", Value: analyze.FormatCount(int64(g.Leaked))}}
	case goroutines.VerdictGrew:
		b.Class, label = "bad", "grew "+g.Base.Change
	case goroutines.VerdictCompared:
		label = "changed " + g.Base.Change
		if g.Total < g.Base.BaseTotal {
			b.Class, label = "good", "shrank "+g.Base.Change
		}
	}
	b.Badges = []view.Badge{{Label: label, Class: b.Class, TestID: "verdict-state"}}
	return b
}
