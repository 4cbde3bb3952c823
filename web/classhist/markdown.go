package classhist

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/internal/markdown"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/snapshot"
)

// The Markdown summaries of the JVM reports: the analyses in analyze/jvm return
// data, and these functions render it for a ticket with the one Markdown writer.
// Every name from a histogram, dump or NMT report is written with markdown.Code
// or markdown.Escape.

// Markdown renders a class histogram: its totals, its n largest
// classes by bytes (n ≤ 0: all) and its warnings.
func Markdown(h *jvm.Histogram, n int) string {
	var b strings.Builder
	b.WriteString(markdown.Heading(3, "JVM class histogram"))
	fmt.Fprintf(&b, "%s\n\n", h.HeadlineWith(markdown.Code))
	fmt.Fprintf(&b, "Layout: %s.", markdown.Escape(h.Format))
	if !h.Time.IsZero() {
		fmt.Fprintf(&b, " Taken %s.", h.Time.Format("2006-01-02 15:04:05"))
	}
	b.WriteString("\n\n")
	b.WriteString(markdown.TableHead(markdown.Right("#"), markdown.Left("class"), markdown.Right("instances"), markdown.Right("bytes"), markdown.Right("share")))
	for i, c := range snapshot.First(h.Ranked(jvm.ByBytes), n) {
		b.WriteString(markdown.Row(strconv.Itoa(i+1), jvm.ClassLabel(c.Name, markdown.Code), analyze.FormatCount(c.Instances),
			analyze.FormatBytes(c.Bytes), page.Share(c.Bytes, h.TotalBytes)))
	}
	if rest := len(h.Classes) - n; n > 0 && rest > 0 {
		fmt.Fprintf(&b, "\n…and %s more classes.\n", analyze.FormatCount(int64(rest)))
	}
	snapshot.MarkdownWarnings(&b, h.Warnings)
	return b.String()
}

// DiffMarkdown renders a histogram diff: the totals, the headline,
// and the n classes that grew most in bytes and in instances (n ≤ 0: all that
// grew), then the application classes with more instances.
func DiffMarkdown(d *jvm.HistogramDiff, n int) string {
	var b strings.Builder
	b.WriteString(markdown.Heading(3, "JVM class histogram diff"))
	fmt.Fprintf(&b, "Objects on the heap: %s → %s (%s), %s → %s instances (%s).\n\n**%s**\n",
		analyze.FormatBytes(d.BaseTotalBytes), analyze.FormatBytes(d.TargetTotalBytes), analyze.FormatSignedValue(d.TotalBytes, "bytes"),
		analyze.FormatCount(d.BaseTotalInstances), analyze.FormatCount(d.TargetTotalInstances), analyze.FormatSignedValue(d.TotalInstances, "count"),
		d.HeadlineWith(markdown.Code))
	for _, table := range []struct {
		title string
		rows  []jvm.ClassChange
	}{
		{"Growth in bytes", d.Grown(jvm.ByBytes, n)},
		{"Growth in instances", d.Grown(jvm.ByInstances, n)},
		{"Application classes with more instances", d.Suspects(n)},
	} {
		if len(table.rows) == 0 {
			continue
		}
		b.WriteString("\n" + markdown.Heading(4, table.title))
		b.WriteString(markdown.TableHead(markdown.Left("class"), markdown.Right("bytes"), markdown.Right("change"), markdown.Right("instances"), markdown.Right("change")))
		for _, c := range table.rows {
			b.WriteString(markdown.Row(jvm.ClassLabel(c.Name, markdown.Code), analyze.FormatBytes(c.TargetBytes), analyze.FormatSignedValue(c.Bytes, "bytes"),
				analyze.FormatCount(c.TargetInstances), analyze.FormatSignedValue(c.Instances, "count")))
		}
	}
	return b.String()
}
