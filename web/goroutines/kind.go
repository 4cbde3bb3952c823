package goroutines

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/leakui/leakui/analyze/goroutines"
	"github.com/leakui/leakui/web/groups"
	"github.com/leakui/leakui/web/page"
)

// The report kinds over goroutine dumps.
const (
	// kindGoroutines is one dump, grouped.
	kindGoroutines = "goroutines"
	// kindGoroutinesDiff is two dumps or more: the first against the last, with
	// every dump one click away.
	kindGoroutinesDiff = "goroutines-diff"
)

// goroutineSummary is stored with a goroutine report: what the dashboard's list
// line needs, of the last dump (the target of a comparison).
type goroutineSummary struct {
	Format string `json:"format"`
	Total  int    `json:"total"`
	Groups int    `json:"groups"`
	// TopCount and TopFunc describe the largest group (the panicking one for a
	// crash); TopFunc is its most telling function.
	TopCount int    `json:"top_count"`
	TopFunc  string `json:"top_func,omitempty"`
	Panic    string `json:"panic,omitempty"`
	// Dumps and BaseTotal are set for two dumps or more.
	Dumps     int `json:"dumps,omitempty"`
	BaseTotal int `json:"base_total,omitempty"`
	// ProvenLeaked marks the runtime's goroutineleak profile.
	ProvenLeaked bool `json:"proven_leaked,omitempty"`
}

// goroutineSummaryOf summarizes the target's groups against the base's total.
func goroutineSummaryOf(target, base *goroutines.Dump, dumps int) goroutineSummary {
	gs := goroutines.Groups(target)
	sum := goroutineSummary{Format: target.Format, Total: target.Total(), Groups: len(gs), ProvenLeaked: target.ProvenLeaked}
	if len(gs) > 0 {
		sum.TopCount, sum.TopFunc = gs[0].Count, groups.Title(gs[0].Stack)
	}
	if c := target.Crash; c != nil {
		sum.Panic = page.CleanText(c.Kind+": "+page.FirstLine(c.Message), 200)
	}
	if base != nil {
		sum.Dumps, sum.BaseTotal = dumps, base.Total()
	}
	return sum
}

// goroutineSummaryLine is the dashboard's line: "20161 goroutines in 168 groups;
// largest 12096 × pkg.fn", with the change for a comparison.
func goroutineSummaryLine(raw json.RawMessage) string {
	var s goroutineSummary
	if json.Unmarshal(raw, &s) != nil || s.Format == "" {
		return ""
	}
	var b strings.Builder
	if s.ProvenLeaked {
		b.WriteString("proven leaked by the Go runtime: ")
	}
	fmt.Fprintf(&b, "%s", page.Plural(s.Total, "goroutine"))
	if s.Dumps > 1 {
		fmt.Fprintf(&b, " (%+d over %d dumps)", s.Total-s.BaseTotal, s.Dumps)
	}
	fmt.Fprintf(&b, " in %s", page.Plural(s.Groups, "group"))
	if s.Panic != "" {
		fmt.Fprintf(&b, "; %s", s.Panic)
	} else if s.TopFunc != "" {
		fmt.Fprintf(&b, "; largest %d × %s", s.TopCount, s.TopFunc)
	}
	return b.String()
}
