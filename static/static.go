// Package static holds the dashboard's CSS and JavaScript, embedded into the binary.
// The web package serves them under content-hashed URLs.
package static

import "embed"

// FS holds every asset, by file name.
//
//go:embed *.css *.js *.svg
var FS embed.FS
