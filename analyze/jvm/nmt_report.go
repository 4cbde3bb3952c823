package jvm

import (
	"fmt"
	"strings"

	"github.com/leakui/leakui/analyze"
)

// Headline is one sentence about the report: committed and reserved memory, the
// Java heap's share and the number of threads.
func (n *NMT) Headline() string {
	heap, _ := n.Category(HeapCategory)
	s := fmt.Sprintf("The JVM committed %s (%s reserved): %s Java heap (%s), %s outside it.",
		analyze.FormatBytes(n.TotalCommitted), analyze.FormatBytes(n.TotalReserved), analyze.FormatBytes(heap.Committed),
		javaPercent(heap.Committed, n.TotalCommitted), analyze.FormatBytes(n.TotalCommitted-heap.Committed))
	if t, ok := n.Category("Thread"); ok && t.Count > 0 {
		s += fmt.Sprintf(" %s threads.", analyze.FormatCount(t.Count))
	}
	if n.Diff {
		s += fmt.Sprintf(" Since the baseline: %s committed.", analyze.FormatSignedValue(n.TotalCommittedDelta, "bytes"))
	}
	return s
}

// Markdown renders the report for a ticket: the headline, the native leak signature
// when a summary.diff shows it, and the categories by committed memory.
func (n *NMT) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "### JVM native memory\n\n%s\n", n.Headline())
	if d := n.BaselineDiff(); d != nil && d.NativeLeak != nil {
		fmt.Fprintf(&b, "\n**%s**\n", javaMarkdownEscape(d.NativeLeak.Message))
	}
	b.WriteString("\n| category | committed | reserved | share of committed |")
	if n.Diff {
		b.WriteString(" change |\n|---|--:|--:|--:|--:|\n")
	} else {
		b.WriteString("\n|---|--:|--:|--:|\n")
	}
	for _, c := range n.ByCommitted() {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |", javaMarkdownEscape(c.Name), analyze.FormatBytes(c.Committed), analyze.FormatBytes(c.Reserved), javaPercent(c.Committed, n.TotalCommitted))
		if n.Diff {
			fmt.Fprintf(&b, " %s |", analyze.FormatSignedValue(c.CommittedDelta, "bytes"))
		}
		b.WriteString("\n")
	}
	javaMarkdownWarnings(&b, n.Warnings)
	return b.String()
}

// Headline is one sentence about the diff: the change in committed memory, split
// into the Java heap and the rest.
func (d *NMTDiff) Headline() string {
	return fmt.Sprintf("Committed: %s → %s (%s); Java heap %s → %s (%s); outside the heap %s → %s (%s).",
		analyze.FormatBytes(d.BaseTotalCommitted), analyze.FormatBytes(d.TotalCommitted), analyze.FormatSignedValue(d.TotalCommittedDelta, "bytes"),
		analyze.FormatBytes(d.BaseHeapCommitted), analyze.FormatBytes(d.HeapCommitted), analyze.FormatSignedValue(d.HeapCommittedDelta, "bytes"),
		analyze.FormatBytes(d.BaseNonHeapCommitted), analyze.FormatBytes(d.NonHeapCommitted), analyze.FormatSignedValue(d.NonHeapCommittedDelta, "bytes"))
}

// Markdown renders the diff for a ticket: the headline, the native leak signature
// when present, and the categories that changed, most growth first.
func (d *NMTDiff) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "### JVM native memory diff\n\n%s\n", d.Headline())
	if d.NativeLeak != nil {
		fmt.Fprintf(&b, "\n**%s**\n", javaMarkdownEscape(d.NativeLeak.Message))
	}
	b.WriteString("\n| category | committed | change | reserved | change |\n|---|--:|--:|--:|--:|\n")
	for _, c := range d.Categories {
		if c.CommittedDelta == 0 && c.ReservedDelta == 0 {
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", javaMarkdownEscape(c.Name), analyze.FormatBytes(c.Committed), analyze.FormatSignedValue(c.CommittedDelta, "bytes"),
			analyze.FormatBytes(c.Reserved), analyze.FormatSignedValue(c.ReservedDelta, "bytes"))
	}
	return b.String()
}
