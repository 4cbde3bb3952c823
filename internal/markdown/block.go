package markdown

import "strings"

// Heading renders a heading of the given level (1 to 6) followed by a blank
// line. The text must already be rendered with Escape, Code or Link.
func Heading(level int, text string) string {
	level = min(max(level, 1), 6)
	return strings.Repeat("#", level) + " " + text + "\n\n"
}

// Column is one column of a table: its header cell, already rendered, and
// whether its cells align right, as numbers do.
type Column struct {
	Head  string
	Right bool
}

// Left is a column whose cells align left (text).
func Left(head string) Column { return Column{Head: head} }

// Right is a column whose cells align right (numbers).
func Right(head string) Column { return Column{Head: head, Right: true} }

// TableHead renders a table's header row and its delimiter row:
//
//	| a | b |
//	|---|---:|
//
// The rows follow, each rendered with Row.
func TableHead(cols ...Column) string {
	var b strings.Builder
	b.WriteString("|")
	for _, c := range cols {
		b.WriteString(" " + c.Head + " |")
	}
	b.WriteString("\n|")
	for _, c := range cols {
		if c.Right {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	return b.String()
}

// Row renders one table row of cells already rendered with Escape, Code or
// Link (or built of numbers and their output): "| a | b |\n". An empty cell
// stays empty.
func Row(cells ...string) string {
	return "| " + strings.Join(cells, " | ") + " |\n"
}

// Prose returns Markdown with its inline code spans removed, as CommonMark
// finds them: a run of backticks opens a span that the next run of the same
// length closes, and a backslash-escaped backtick opens nothing. Checks use it
// to look at the text that Markdown interprets, outside code spans, where
// markup would take effect.
func Prose(md string) string {
	var b strings.Builder
	for i := 0; i < len(md); {
		switch md[i] {
		case '\\':
			end := min(i+2, len(md))
			b.WriteString(md[i:end])
			i = end
			continue
		case '`':
			n := 1
			for i+n < len(md) && md[i+n] == '`' {
				n++
			}
			if end := closingRun(md, i+n, n); end >= 0 {
				i = end
				continue
			}
			b.WriteString(md[i : i+n])
			i += n
			continue
		}
		b.WriteByte(md[i])
		i++
	}
	return b.String()
}

// closingRun finds the run of exactly n backticks that closes a code span
// opened before from, and returns the index after it, or -1.
func closingRun(md string, from, n int) int {
	for i := from; i < len(md); {
		if md[i] != '`' {
			i++
			continue
		}
		m := 1
		for i+m < len(md) && md[i+m] == '`' {
			m++
		}
		if m == n {
			return i + m
		}
		i += m
	}
	return -1
}

// CodeBlock renders lines as a fenced code block, where Markdown shows text as
// it is. Each line is folded (see Fold), so a line cannot hold a line break,
// and the fence is at least three backticks, longer than any run of backticks
// in the lines, so no line can close the block.
func CodeBlock(lines ...string) string {
	folded := make([]string, len(lines))
	run := 0
	for i, l := range lines {
		folded[i] = Fold(l)
		run = max(run, longestRun(folded[i], '`'))
	}
	fence := strings.Repeat("`", max(3, run+1))
	var b strings.Builder
	b.WriteString(fence + "\n")
	for _, l := range folded {
		b.WriteString(l + "\n")
	}
	b.WriteString(fence + "\n")
	return b.String()
}
