package jvm

import (
	"fmt"
	"strings"

	"github.com/leakui/leakui/analyze"
)

// ClassDisplayName renders a class name the way Java source spells it: "[B"
// becomes "byte[]", "[[Ljava.lang.String;" becomes "java.lang.String[][]". Any other
// name is returned as it is.
func ClassDisplayName(name string) string {
	dims := 0
	for dims < len(name) && name[dims] == '[' {
		dims++
	}
	if dims == 0 || dims == len(name) {
		return name
	}
	elem := name[dims:]
	switch {
	case len(elem) == 1:
		prim, ok := map[byte]string{'Z': "boolean", 'B': "byte", 'C': "char", 'S': "short", 'I': "int", 'J': "long", 'F': "float", 'D': "double"}[elem[0]]
		if !ok {
			return name
		}
		elem = prim
	case elem[0] == 'L' && strings.HasSuffix(elem, ";") && len(elem) > 2:
		elem = elem[1 : len(elem)-1]
	default:
		return name
	}
	return elem + strings.Repeat("[]", dims)
}

// Headline is one sentence about the histogram for a page title or a ticket: its
// size and its largest class.
func (h *Histogram) Headline() string {
	s := fmt.Sprintf("%s classes, %s instances, %s.", analyze.FormatCount(int64(len(h.Classes))), analyze.FormatCount(h.TotalInstances), analyze.FormatBytes(h.TotalBytes))
	if top := h.Ranked(ByBytes); len(top) > 0 {
		s += fmt.Sprintf(" Largest: %s with %s in %s instances (%s of the heap's objects).",
			javaClassLabel(top[0].Name), analyze.FormatBytes(top[0].Bytes), analyze.FormatCount(top[0].Instances), javaPercent(top[0].Bytes, h.TotalBytes))
	}
	return s
}

// Markdown renders the histogram for a ticket: totals, its n largest classes by
// bytes (n ≤ 0: all) and its warnings.
func (h *Histogram) Markdown(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### JVM class histogram\n\n%s\n\n", h.Headline())
	fmt.Fprintf(&b, "Layout: %s.", h.Format)
	if !h.Time.IsZero() {
		fmt.Fprintf(&b, " Taken %s.", h.Time.Format("2006-01-02 15:04:05"))
	}
	b.WriteString("\n\n| # | class | instances | bytes | share |\n|--:|---|--:|--:|--:|\n")
	for i, c := range javaFirst(h.Ranked(ByBytes), n) {
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s |\n", i+1, javaClassLabel(c.Name), analyze.FormatCount(c.Instances), analyze.FormatBytes(c.Bytes), javaPercent(c.Bytes, h.TotalBytes))
	}
	if rest := len(h.Classes) - n; n > 0 && rest > 0 {
		fmt.Fprintf(&b, "\n…and %s more classes.\n", analyze.FormatCount(int64(rest)))
	}
	javaMarkdownWarnings(&b, h.Warnings)
	return b.String()
}

// Headline is one sentence about the diff: the class that grew most in bytes, with
// its growth in instances and its share of the total growth.
func (d *HistogramDiff) Headline() string {
	grown := d.Grown(ByBytes, 1)
	if len(grown) == 0 {
		return fmt.Sprintf("No class grew in bytes; the histogram's total changed by %s.", analyze.FormatSignedValue(d.TotalBytes, "bytes"))
	}
	top := grown[0]
	s := fmt.Sprintf("%s grew most: %s (%s instances, %s → %s)", javaClassLabel(top.Name),
		analyze.FormatSignedValue(top.Bytes, "bytes"), analyze.FormatSignedValue(top.Instances, "count"), analyze.FormatBytes(top.BaseBytes), analyze.FormatBytes(top.TargetBytes))
	if d.TotalBytes > 0 {
		s += fmt.Sprintf(", %s of the total growth of %s", javaPercent(top.Bytes, d.TotalBytes), analyze.FormatBytes(d.TotalBytes))
	}
	s += "."
	if suspects := d.Suspects(3); len(suspects) > 0 {
		s += " Application classes with more instances:"
		for i, c := range suspects {
			if i > 0 {
				s += ","
			}
			s += fmt.Sprintf(" %s %s (%s → %s)", javaClassLabel(c.Name), analyze.FormatSignedValue(c.Instances, "count"), analyze.FormatCount(c.BaseInstances), analyze.FormatCount(c.TargetInstances))
		}
		s += "."
	}
	return s
}

// Markdown renders the diff for a ticket: totals, the headline, and the n classes
// that grew most in bytes and in instances (n ≤ 0: all that grew).
func (d *HistogramDiff) Markdown(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### JVM class histogram diff\n\nObjects on the heap: %s → %s (%s), %s → %s instances (%s).\n\n**%s**\n",
		analyze.FormatBytes(d.BaseTotalBytes), analyze.FormatBytes(d.TargetTotalBytes), analyze.FormatSignedValue(d.TotalBytes, "bytes"),
		analyze.FormatCount(d.BaseTotalInstances), analyze.FormatCount(d.TargetTotalInstances), analyze.FormatSignedValue(d.TotalInstances, "count"), d.Headline())
	tables := []struct {
		title string
		rows  []ClassChange
	}{
		{"Growth in bytes", d.Grown(ByBytes, n)},
		{"Growth in instances", d.Grown(ByInstances, n)},
		{"Application classes with more instances", d.Suspects(n)},
	}
	for _, table := range tables {
		if len(table.rows) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n#### %s\n\n| class | bytes | change | instances | change |\n|---|--:|--:|--:|--:|\n", table.title)
		for _, c := range table.rows {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", javaClassLabel(c.Name), analyze.FormatBytes(c.TargetBytes), analyze.FormatSignedValue(c.Bytes, "bytes"),
				analyze.FormatCount(c.TargetInstances), analyze.FormatSignedValue(c.Instances, "count"))
		}
	}
	return b.String()
}

// javaClassLabel renders a class name as Markdown code, with its Java spelling after
// it when that differs ("`[B` (`byte[]`)").
func javaClassLabel(name string) string {
	s := javaMarkdownCode(name)
	if d := ClassDisplayName(name); d != name {
		s += " (" + javaMarkdownCode(d) + ")"
	}
	return s
}

// javaMarkdownCode renders text from a dump as a Markdown code span that is safe
// inside a table cell: pipes escaped, a fence longer than any backtick run inside.
func javaMarkdownCode(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || fence != "`" {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// javaMarkdownEscape escapes text from a dump for Markdown prose and table cells.
func javaMarkdownEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_[]<>|~", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func javaMarkdownWarnings(b *strings.Builder, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(b, "\n> Warning: %s\n", javaMarkdownEscape(w))
	}
}

// javaFirst returns the first n elements of s (all when n ≤ 0).
func javaFirst[T any](s []T, n int) []T {
	if n > 0 && len(s) > n {
		return s[:n]
	}
	return s
}

// javaPercent renders part/whole as a percentage with one decimal.
func javaPercent(part, whole int64) string {
	if whole == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", float64(part)*100/float64(whole))
}
