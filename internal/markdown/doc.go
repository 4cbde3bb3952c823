// Package markdown is leakui's one Markdown writer: every Markdown summary a
// report has (GET /r/{id}.md), which people paste into incident tickets, is
// written with it.
//
// Text in those summaries comes from files anyone may have written: function
// names in a profile, thread names in a dump, keys in a log, file names. The
// writer keeps such text from becoming markup. Escape is for prose and table
// cells, Code for an inline code span that is also safe in a table cell, and
// Link for a link. Both fold line breaks into spaces, so a name cannot end a
// table row or a list item, replace invalid UTF-8 with U+FFFD, drop control
// characters, and keep at most MaxRunes runes of a name.
//
// The block helpers (Heading, TableHead, Row) take text that is already
// rendered with Escape, Code or Link, so that each piece of untrusted text is
// escaped exactly once, where it is written.
//
// The package imports only the standard library; analyses do not use it.
// They return data, and package web renders that data as Markdown.
package markdown
