package jvm

import (
	"fmt"
	"strings"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/internal/markdown"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/snapshot"
)

// NMTMarkdown renders a native memory report: the headline, the native leak
// signature when a summary.diff shows it, and the categories by committed
// memory.
func NMTMarkdown(n *jvm.NMT) string {
	var b strings.Builder
	b.WriteString(markdown.Heading(3, "JVM native memory"))
	fmt.Fprintf(&b, "%s\n", n.Headline())
	if d := n.BaselineDiff(); d != nil && d.NativeLeak != nil {
		fmt.Fprintf(&b, "\n**%s**\n", markdown.Escape(d.NativeLeak.Message))
	}
	cols := []markdown.Column{markdown.Left("category"), markdown.Right("committed"), markdown.Right("reserved"), markdown.Right("share of committed")}
	if n.Diff {
		cols = append(cols, markdown.Right("change"))
	}
	b.WriteString("\n" + markdown.TableHead(cols...))
	for _, c := range n.ByCommitted() {
		cells := []string{markdown.Escape(c.Name), analyze.FormatBytes(c.Committed), analyze.FormatBytes(c.Reserved), page.Share(c.Committed, n.TotalCommitted)}
		if n.Diff {
			cells = append(cells, analyze.FormatSignedValue(c.CommittedDelta, "bytes"))
		}
		b.WriteString(markdown.Row(cells...))
	}
	snapshot.MarkdownWarnings(&b, n.Warnings)
	return b.String()
}

// NMTDiffMarkdown renders the diff of two native memory reports: the
// headline, the native leak signature when present, and the categories that
// changed, most growth first.
func NMTDiffMarkdown(d *jvm.NMTDiff) string {
	var b strings.Builder
	b.WriteString(markdown.Heading(3, "JVM native memory diff"))
	fmt.Fprintf(&b, "%s\n", d.Headline())
	if d.NativeLeak != nil {
		fmt.Fprintf(&b, "\n**%s**\n", markdown.Escape(d.NativeLeak.Message))
	}
	b.WriteString("\n" + markdown.TableHead(markdown.Left("category"), markdown.Right("committed"), markdown.Right("change"), markdown.Right("reserved"), markdown.Right("change")))
	for _, c := range d.Categories {
		if c.CommittedDelta == 0 && c.ReservedDelta == 0 {
			continue
		}
		b.WriteString(markdown.Row(markdown.Escape(c.Name), analyze.FormatBytes(c.Committed), analyze.FormatSignedValue(c.CommittedDelta, "bytes"),
			analyze.FormatBytes(c.Reserved), analyze.FormatSignedValue(c.ReservedDelta, "bytes")))
	}
	return b.String()
}

// ThreadReportMarkdown renders a thread dump file: the last dump's groups
// (n ≤ 0: all), the change since the first dump, the headlines of the class
// histograms in the file and the warnings.
func ThreadReportMarkdown(r *jvm.ThreadReport, n int) string {
	var b strings.Builder
	if r.Dumps > 1 {
		fmt.Fprintf(&b, "The file holds %d thread dumps; this is the last.\n\n", r.Dumps)
	}
	b.WriteString(ThreadGroupsMarkdown(r.Groups, n))
	if r.Diff != nil {
		b.WriteString("\n")
		b.WriteString(ThreadDiffMarkdown(r.Diff, n))
	}
	for _, h := range r.Histograms {
		fmt.Fprintf(&b, "\nClass histogram at line %d: %s\n", h.Line, h.HeadlineWith(markdown.Code))
	}
	snapshot.MarkdownWarnings(&b, r.Warnings)
	return b.String()
}

// ThreadGroupsMarkdown renders one dump: deadlocks, states, and the n largest
// groups (n ≤ 0: all) with their names, locks and top frames, then the stack of
// the first group.
func ThreadGroupsMarkdown(g *jvm.ThreadGroups, n int) string {
	var b strings.Builder
	b.WriteString(markdown.Heading(3, "JVM thread dump"))
	fmt.Fprintf(&b, "%s\n", g.HeadlineWith(markdown.Code))
	if g.Header != "" || !g.Time.IsZero() {
		b.WriteString("\n")
		if !g.Time.IsZero() {
			fmt.Fprintf(&b, "Taken %s. ", g.Time.Format("2006-01-02 15:04:05"))
		}
		b.WriteString(markdown.Escape(g.Header))
		b.WriteString("\n")
	}
	for i, dl := range g.Deadlocks {
		fmt.Fprintf(&b, "\n**Deadlock %d:**\n\n", i+1)
		for _, t := range dl.Threads {
			fmt.Fprintf(&b, "- %s %s, held by %s\n", markdown.Code(t.Name), markdown.Escape(t.Waiting), markdown.Code(t.HeldBy))
		}
	}
	b.WriteString("\nStates: ")
	for i, s := range g.States {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", markdown.Code(s.State), analyze.FormatCount(int64(s.Count)))
	}
	b.WriteString(".\n\n")
	b.WriteString(markdown.TableHead(markdown.Right("threads"), markdown.Left("state"), markdown.Left("names"), markdown.Left("where"), markdown.Left("locks")))
	for _, grp := range snapshot.First(g.Groups, n) {
		state := markdown.Code(grp.State)
		if grp.Deadlocked {
			state = "**deadlocked** " + state
		}
		b.WriteString(markdown.Row(analyze.FormatCount(int64(grp.Count)), state, jvmNamesCell(grp.Names), jvm.TopFrame(grp.Stack, markdown.Code), jvmLocksCell(grp.Locks)))
	}
	if rest := len(g.Groups) - n; n > 0 && rest > 0 {
		fmt.Fprintf(&b, "\n…and %s more groups.\n", analyze.FormatCount(int64(rest)))
	}
	if len(g.Groups) > 0 && len(g.Groups[0].Stack) > 0 {
		fmt.Fprintf(&b, "\nStack of the first group (%s threads):\n\n", analyze.FormatCount(int64(g.Groups[0].Count)))
		frames := snapshot.First(g.Groups[0].Stack, 20)
		lines := make([]string, len(frames))
		for i, f := range frames {
			lines[i] = "at " + f
		}
		b.WriteString(markdown.CodeBlock(lines...))
	}
	return b.String()
}

// ThreadDiffMarkdown renders the diff of two dumps: the headline, then the n
// largest new and grown groups and the name patterns that grew (n ≤ 0: all).
func ThreadDiffMarkdown(d *jvm.ThreadDiff, n int) string {
	var b strings.Builder
	b.WriteString(markdown.Heading(3, "JVM thread dump diff"))
	fmt.Fprintf(&b, "%s\n", d.HeadlineWith(markdown.Code))
	for _, part := range []struct {
		title string
		rows  []jvm.ThreadGroupChange
	}{{"New groups", d.New}, {"Grown groups", d.Grown}} {
		if len(part.rows) == 0 {
			continue
		}
		b.WriteString("\n" + markdown.Heading(4, part.title))
		b.WriteString(markdown.TableHead(markdown.Right("threads"), markdown.Right("change"), markdown.Left("state"), markdown.Left("names"), markdown.Left("where")))
		for _, c := range snapshot.First(part.rows, n) {
			b.WriteString(markdown.Row(analyze.FormatCount(int64(c.Count)), analyze.FormatSignedValue(int64(c.Delta), "count"), markdown.Code(c.State),
				jvmNamesCell(c.Names), jvm.TopFrame(c.Stack, markdown.Code)))
		}
	}
	var grew []jvm.NameChange
	for _, c := range d.Names {
		if c.Delta > 0 {
			grew = append(grew, c)
		}
	}
	if len(grew) > 0 {
		b.WriteString("\n" + markdown.Heading(4, "Thread names that multiplied"))
		b.WriteString(markdown.TableHead(markdown.Left("name"), markdown.Right("before"), markdown.Right("after"), markdown.Right("change")))
		for _, c := range snapshot.First(grew, n) {
			b.WriteString(markdown.Row(markdown.Code(c.Pattern), analyze.FormatCount(int64(c.Base)), analyze.FormatCount(int64(c.Target)),
				analyze.FormatSignedValue(int64(c.Delta), "count")))
		}
	}
	return b.String()
}

// jvmNamesCell renders a group's thread name patterns, with their counts when
// there are several.
func jvmNamesCell(names []jvm.NamePattern) string {
	parts := make([]string, 0, len(names))
	for _, p := range names {
		s := markdown.Code(p.Pattern)
		if len(names) > 1 {
			s += fmt.Sprintf(" ×%d", p.Count)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// jvmLocksCell renders a group's locks: the kind, the class, how many objects
// and who holds them.
func jvmLocksCell(locks []jvm.GroupLock) string {
	parts := make([]string, 0, len(locks))
	for _, l := range locks {
		s := markdown.Escape(l.Kind)
		if l.Class != "" {
			s += " " + markdown.Code(l.Class)
		}
		if l.Objects > 1 {
			s += fmt.Sprintf(" (%d objects)", l.Objects)
		}
		if len(l.HeldBy) > 0 {
			held := make([]string, len(l.HeldBy))
			for i, h := range l.HeldBy {
				held[i] = markdown.Code(h)
			}
			s += " held by " + strings.Join(held, ", ")
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}
