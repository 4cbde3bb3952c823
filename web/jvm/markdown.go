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
