package jvm

import (
	"fmt"
	"strings"

	"github.com/leakui/leakui/analyze"
)

// Headline is one sentence about the dump: deadlocks first, then the number of
// threads and the largest group.
func (g *ThreadGroups) Headline() string {
	var b strings.Builder
	if n := len(g.Deadlocks); n > 0 {
		fmt.Fprintf(&b, "The JVM reported %d deadlock%s: %s. ", n, javaPlural(n), javaDeadlockSentence(g.Deadlocks[0]))
	}
	fmt.Fprintf(&b, "%s threads (%s daemon) in %s groups.", analyze.FormatCount(int64(g.Total)), analyze.FormatCount(int64(g.Daemon)), analyze.FormatCount(int64(len(g.Groups))))
	if len(g.Groups) > 0 {
		top := g.Groups[0]
		for _, grp := range g.Groups {
			if !grp.Deadlocked { // deadlocked groups come first; name the largest other one
				top = grp
				break
			}
		}
		fmt.Fprintf(&b, " Largest group: %s threads %s %s.", analyze.FormatCount(int64(top.Count)), javaMarkdownCode(top.State), javaTopFrame(top.Stack))
	}
	return b.String()
}

// javaDeadlockSentence describes one deadlock cycle: who waits for whom.
func javaDeadlockSentence(dl Deadlock) string {
	parts := make([]string, 0, len(dl.Threads))
	for _, t := range dl.Threads {
		s := javaMarkdownCode(t.Name) + " waits"
		if t.HeldBy != "" {
			s += " for " + javaMarkdownCode(t.HeldBy)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// javaTopFrame says where a stack is: "at `frame`", or that it has no Java frames
// (a VM or GC thread).
func javaTopFrame(stack []string) string {
	if len(stack) == 0 {
		return "with no Java frames"
	}
	return "at " + javaMarkdownCode(stack[0])
}

// Markdown renders the dump for a ticket: deadlocks, states, and the n largest groups
// (n ≤ 0: all) with their names, locks and top frames, then the largest group's stack.
func (g *ThreadGroups) Markdown(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### JVM thread dump\n\n%s\n", g.Headline())
	if g.Header != "" || !g.Time.IsZero() {
		b.WriteString("\n")
		if !g.Time.IsZero() {
			fmt.Fprintf(&b, "Taken %s. ", g.Time.Format("2006-01-02 15:04:05"))
		}
		if g.Header != "" {
			fmt.Fprintf(&b, "%s", javaMarkdownEscape(g.Header))
		}
		b.WriteString("\n")
	}
	for i, dl := range g.Deadlocks {
		fmt.Fprintf(&b, "\n**Deadlock %d:**\n\n", i+1)
		for _, t := range dl.Threads {
			fmt.Fprintf(&b, "- %s %s, held by %s\n", javaMarkdownCode(t.Name), javaMarkdownEscape(t.Waiting), javaMarkdownCode(t.HeldBy))
		}
	}
	b.WriteString("\nStates: ")
	for i, s := range g.States {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", javaMarkdownCode(s.State), analyze.FormatCount(int64(s.Count)))
	}
	b.WriteString(".\n\n| threads | state | names | where | locks |\n|--:|---|---|---|---|\n")
	for _, grp := range javaFirst(g.Groups, n) {
		state := javaMarkdownCode(grp.State)
		if grp.Deadlocked {
			state = "**deadlocked** " + state
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", analyze.FormatCount(int64(grp.Count)), state, javaNamesCell(grp.Names), javaTopFrame(grp.Stack), javaLocksCell(grp.Locks))
	}
	if rest := len(g.Groups) - n; n > 0 && rest > 0 {
		fmt.Fprintf(&b, "\n…and %s more groups.\n", analyze.FormatCount(int64(rest)))
	}
	if len(g.Groups) > 0 && len(g.Groups[0].Stack) > 0 {
		fmt.Fprintf(&b, "\nStack of the first group (%s threads):\n\n```\n", analyze.FormatCount(int64(g.Groups[0].Count)))
		for _, f := range javaFirst(g.Groups[0].Stack, 20) {
			fmt.Fprintf(&b, "at %s\n", strings.ReplaceAll(f, "```", "'''"))
		}
		b.WriteString("```\n")
	}
	return b.String()
}

func javaNamesCell(names []NamePattern) string {
	parts := make([]string, 0, len(names))
	for _, p := range names {
		s := javaMarkdownCode(p.Pattern)
		if len(names) > 1 {
			s += fmt.Sprintf(" ×%d", p.Count)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

func javaLocksCell(locks []GroupLock) string {
	parts := make([]string, 0, len(locks))
	for _, l := range locks {
		s := javaMarkdownEscape(l.Kind)
		if l.Class != "" {
			s += " " + javaMarkdownCode(l.Class)
		}
		if l.Objects > 1 {
			s += fmt.Sprintf(" (%d objects)", l.Objects)
		}
		if len(l.HeldBy) > 0 {
			held := make([]string, len(l.HeldBy))
			for i, h := range l.HeldBy {
				held[i] = javaMarkdownCode(h)
			}
			s += " held by " + strings.Join(held, ", ")
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// Headline is one sentence about the diff: the change in threads and what grew most.
func (d *ThreadDiff) Headline() string {
	s := fmt.Sprintf("Threads: %s → %s (%s).", analyze.FormatCount(int64(d.BaseTotal)), analyze.FormatCount(int64(d.TargetTotal)), analyze.FormatSignedValue(int64(d.TargetTotal-d.BaseTotal), "count"))
	if len(d.Names) > 0 && d.Names[0].Delta > 0 {
		n := d.Names[0]
		s += fmt.Sprintf(" Most new threads are named %s: %s → %s.", javaMarkdownCode(n.Pattern), analyze.FormatCount(int64(n.Base)), analyze.FormatCount(int64(n.Target)))
	}
	return s
}

// Markdown renders the diff for a ticket: the headline, then the n largest new and
// grown groups and the name patterns that grew (n ≤ 0: all).
func (d *ThreadDiff) Markdown(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### JVM thread dump diff\n\n%s\n", d.Headline())
	for _, part := range []struct {
		title string
		rows  []ThreadGroupChange
	}{{"New groups", d.New}, {"Grown groups", d.Grown}} {
		if len(part.rows) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n#### %s\n\n| threads | change | state | names | where |\n|--:|--:|---|---|---|\n", part.title)
		for _, c := range javaFirst(part.rows, n) {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", analyze.FormatCount(int64(c.Count)), analyze.FormatSignedValue(int64(c.Delta), "count"), javaMarkdownCode(c.State), javaNamesCell(c.Names), javaTopFrame(c.Stack))
		}
	}
	var grew []NameChange
	for _, c := range d.Names {
		if c.Delta > 0 {
			grew = append(grew, c)
		}
	}
	if len(grew) > 0 {
		b.WriteString("\n#### Thread names that multiplied\n\n| name | before | after | change |\n|---|--:|--:|--:|\n")
		for _, c := range javaFirst(grew, n) {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", javaMarkdownCode(c.Pattern), analyze.FormatCount(int64(c.Base)), analyze.FormatCount(int64(c.Target)), analyze.FormatSignedValue(int64(c.Delta), "count"))
		}
	}
	return b.String()
}

func javaPlural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
