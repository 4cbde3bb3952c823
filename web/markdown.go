package web

import "strings"

// mdEscape escapes text for Markdown prose so that names cannot inject links,
// emphasis or HTML into a ticket.
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range cleanText(s, 500) {
		if strings.ContainsRune("\\`*_[]<>|~", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mdCode makes text safe inside a `code span` in a table cell: no backticks, no
// pipes, no line breaks.
func mdCode(s string) string {
	s = cleanText(s, 500)
	s = strings.ReplaceAll(s, "`", "'")
	return strings.ReplaceAll(s, "|", "\\|")
}
