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
// size and its largest class. Class names are quoted as backtick code spans
// (see HeadlineWith).
func (h *Histogram) Headline() string { return h.HeadlineWith(backtickQuote) }

// HeadlineWith is Headline with class names quoted by quote, which renders a
// name for the headline's format (package web passes its Markdown writer's
// code span).
func (h *Histogram) HeadlineWith(quote func(string) string) string {
	s := fmt.Sprintf("%s, %s, %s.", analyze.PluralWord(int64(len(h.Classes)), "class", "classes"), analyze.Plural(h.TotalInstances, "instance"), analyze.FormatBytes(h.TotalBytes))
	if top := h.Ranked(ByBytes); len(top) > 0 {
		s += fmt.Sprintf(" Largest: %s with %s in %s (%s of the heap's objects).",
			ClassLabel(top[0].Name, quote), analyze.FormatBytes(top[0].Bytes), analyze.Plural(top[0].Instances, "instance"), percent(top[0].Bytes, h.TotalBytes))
	}
	return s
}

// Headline is one sentence about the diff: the class that grew most in bytes, with
// its growth in instances and its share of the total growth. Class names are
// quoted as backtick code spans (see HeadlineWith).
func (d *HistogramDiff) Headline() string { return d.HeadlineWith(backtickQuote) }

// HeadlineWith is Headline with class names quoted by quote.
func (d *HistogramDiff) HeadlineWith(quote func(string) string) string {
	grown := d.Grown(ByBytes, 1)
	if len(grown) == 0 {
		return fmt.Sprintf("No class grew in bytes; the histogram's total changed by %s.", analyze.FormatSignedValue(d.TotalBytes, "bytes"))
	}
	top := grown[0]
	s := fmt.Sprintf("%s grew most: %s (%s instances, %s → %s)", ClassLabel(top.Name, quote),
		analyze.FormatSignedValue(top.Bytes, "bytes"), analyze.FormatSignedValue(top.Instances, "count"), analyze.FormatBytes(top.BaseBytes), analyze.FormatBytes(top.TargetBytes))
	if d.TotalBytes > 0 {
		s += fmt.Sprintf(", %s of the total growth of %s", percent(top.Bytes, d.TotalBytes), analyze.FormatBytes(d.TotalBytes))
	}
	s += "."
	if suspects := d.Suspects(3); len(suspects) > 0 {
		s += " Application classes with more instances:"
		for i, c := range suspects {
			if i > 0 {
				s += ","
			}
			s += fmt.Sprintf(" %s %s (%s → %s)", ClassLabel(c.Name, quote), analyze.FormatSignedValue(c.Instances, "count"), analyze.FormatCount(c.BaseInstances), analyze.FormatCount(c.TargetInstances))
		}
		s += "."
	}
	return s
}

// ClassLabel renders a class name quoted by quote, with its Java spelling after it,
// quoted too, when that differs: "`[B` (`byte[]`)".
func ClassLabel(name string, quote func(string) string) string {
	s := quote(name)
	if d := ClassDisplayName(name); d != name {
		s += " (" + quote(d) + ")"
	}
	return s
}

// backtickQuote is how Headline quotes a name for the JSON API and the command
// line: a backtick code span, its fence longer than any run of backticks in the
// name and padded with spaces when the name holds backticks, pipes escaped.
// The Markdown summaries quote with package web's Markdown writer instead.
func backtickQuote(s string) string {
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

// percent renders part/whole as a percentage with one decimal.
func percent(part, whole int64) string {
	if whole == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", float64(part)*100/float64(whole))
}
