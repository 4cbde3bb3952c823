package web

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/leakui/leakui/internal/markdown"
)

// checkMarkdownShape checks a Markdown summary whatever went into it: valid
// UTF-8 without control characters or line separators, no markup outside code
// spans (escaped angle brackets and the "> " of a quoted warning aside), and
// in each table every row has as many cells as the header.
func checkMarkdownShape(t testing.TB, md string) {
	t.Helper()
	if !utf8.ValidString(md) || strings.ContainsAny(md, "\u2028\u2029\r\x00") {
		t.Fatalf("the Markdown is not clean UTF-8 text:\n%q", md)
	}
	prose := strings.NewReplacer(`\<`, "", `\>`, "").Replace(markdown.Prose(md))
	for _, line := range strings.Split(prose, "\n") {
		line = strings.TrimPrefix(strings.TrimLeft(line, " "), "> ")
		if strings.ContainsAny(line, "<>") {
			t.Fatalf("markup outside code spans in %q:\n%s", line, md)
		}
	}
	cells := -1
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			cells = -1
			continue
		}
		n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|")
		if cells < 0 {
			cells = n
		} else if n != cells {
			t.Fatalf("a row with %d borders in a table of %d: %q\n%s", n, cells, line, md)
		}
	}
}
