package goroutines

import (
	"fmt"
	"strings"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/web/view"
)

// goroutineBanner is the verdict of a goroutine dump report: a crash, the
// runtime's proof of leaked goroutines, the growth of a comparison, or the count
// and the largest group.
func goroutineBanner(g view.GoroutineGroups) *view.Banner {
	b := &view.Banner{State: "dump"}
	label := analyze.FormatCount(int64(g.Total)) + " goroutines"
	largest := ""
	if len(g.Groups) > 0 {
		largest = fmt.Sprintf("; the largest group is %s goroutines in %s", analyze.FormatCount(int64(g.Groups[0].Count)), g.Groups[0].Title)
	}
	switch {
	case g.Panic != nil:
		b.State, b.Class, label = "crash", "bad", g.Panic.Kind
		msg, _, _ := strings.Cut(g.Panic.Message, "\n")
		b.Reason = fmt.Sprintf("The program crashed (%s: %s) with %s goroutines%s.", g.Panic.Kind, msg, analyze.FormatCount(int64(g.Total)), largest)
	case g.ProvenLeaked || g.Leaked > 0:
		b.State, b.Class, label = "leak", "bad", analyze.FormatCount(int64(g.Leaked))+" proven leaked"
		b.Reason = fmt.Sprintf("The Go runtime proves %s goroutines leaked (blocked on something no other goroutine can reach)%s.", analyze.FormatCount(int64(g.Leaked)), largest)
	case g.Base != nil:
		d := g.Base
		b.State, label = "compared", "changed "+d.Change
		if d.Grew {
			b.State, b.Class, label = "grew", "warn", "grew "+d.Change
		}
		b.Reason = fmt.Sprintf("Goroutines went from %s in %s to %s in %s (%s): %d groups new or grown, %d gone.",
			analyze.FormatCount(int64(d.BaseTotal)), d.BaseName, analyze.FormatCount(int64(g.Total)), d.TargetName, d.Change, d.NewOrGrew, d.Gone)
	default:
		b.Reason = fmt.Sprintf("One dump of %s goroutines%s. One dump shows where goroutines wait, not whether they pile up: compare two dumps taken minutes apart.", analyze.FormatCount(int64(g.Total)), largest)
	}
	b.Badges = []view.Badge{{Label: label, Class: b.Class, TestID: "verdict-state"}}
	return b
}
