// Package goroutines is Go goroutine dumps as a kind of evidence in the web:
// uploads of one dump or more (text dumps, goroutine profiles), their report's
// page with its modes (one dump, a comparison), its query, JSON and Markdown.
// The groups themselves are web/groups'. It implements kind.Kind; the web root
// registers it.
package goroutines
