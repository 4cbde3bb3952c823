package jvm

import (
	"fmt"
	"strings"

	"github.com/leakui/leakui/analyze"
)

// Headline is one sentence about the dump: deadlocks first, then the number of
// threads and the largest group. Thread names, states and frames are quoted as
// backtick code spans (see HeadlineWith).
func (g *ThreadGroups) Headline() string { return g.HeadlineWith(backtickQuote) }

// HeadlineWith is Headline with thread names, states and frames quoted by quote,
// which renders them for the headline's format (package web passes its Markdown
// writer's code span).
func (g *ThreadGroups) HeadlineWith(quote func(string) string) string {
	var b strings.Builder
	if n := len(g.Deadlocks); n > 0 {
		fmt.Fprintf(&b, "The JVM reported %s: %s. ", analyze.Plural(int64(n), "deadlock"), deadlockSentence(g.Deadlocks[0], quote))
	}
	fmt.Fprintf(&b, "%s (%s daemon) in %s.", analyze.Plural(int64(g.Total), "thread"), analyze.FormatCount(int64(g.Daemon)), analyze.Plural(int64(len(g.Groups)), "group"))
	if len(g.Groups) > 0 {
		top := g.Groups[0]
		for _, grp := range g.Groups {
			if !grp.Deadlocked { // deadlocked groups come first; name the largest other one
				top = grp
				break
			}
		}
		fmt.Fprintf(&b, " Largest group: %s %s %s.", analyze.Plural(int64(top.Count), "thread"), quote(top.State), TopFrame(top.Stack, quote))
	}
	return b.String()
}

// deadlockSentence describes one deadlock cycle: who waits for whom.
func deadlockSentence(dl Deadlock, quote func(string) string) string {
	parts := make([]string, 0, len(dl.Threads))
	for _, t := range dl.Threads {
		s := quote(t.Name) + " waits"
		if t.HeldBy != "" {
			s += " for " + quote(t.HeldBy)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// TopFrame says where a stack is: "at " and its top frame quoted by quote, or
// that it has no Java frames (a VM or GC thread).
func TopFrame(stack []string, quote func(string) string) string {
	if len(stack) == 0 {
		return "with no Java frames"
	}
	return "at " + quote(stack[0])
}

// Headline is one sentence about the diff: the change in threads and what grew
// most. Name patterns are quoted as backtick code spans (see HeadlineWith).
func (d *ThreadDiff) Headline() string { return d.HeadlineWith(backtickQuote) }

// HeadlineWith is Headline with name patterns quoted by quote.
func (d *ThreadDiff) HeadlineWith(quote func(string) string) string {
	s := fmt.Sprintf("Threads: %s → %s (%s).", analyze.FormatCount(int64(d.BaseTotal)), analyze.FormatCount(int64(d.TargetTotal)), analyze.FormatSignedValue(int64(d.TargetTotal-d.BaseTotal), "count"))
	if len(d.Names) > 0 && d.Names[0].Delta > 0 {
		n := d.Names[0]
		s += fmt.Sprintf(" Most new threads are named %s: %s → %s.", quote(n.Pattern), analyze.FormatCount(int64(n.Base)), analyze.FormatCount(int64(n.Target)))
	}
	return s
}
