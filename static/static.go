// Package static holds the dashboard's CSS and JavaScript, embedded into the binary.
// The web package serves them under content-hashed URLs. vendor/ holds third-party
// release builds, each with its licence and a README naming its version and sums.
//
// static/vendor/uplot/ is uPlot's release build (version, licence and SHA-256 in
// its README), which charts.js draws the line charts with.
package static

import "embed"

// FS holds every asset, by file name (vendor/… for the vendored libraries).
//
//go:embed *.css *.js *.svg vendor/uplot/*.js vendor/uplot/*.css vendor/uplot/LICENSE
var FS embed.FS
