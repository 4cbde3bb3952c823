// Package profiles is pprof profiles as a kind of evidence in the web: uploads
// of one profile or more, the report's pages (top table, flame graphs and diff
// flame graphs cut from cached flame trees, sandwich, the goroutine groups of a
// goroutine profile), its query, JSON, Markdown, flame.svg and a series'
// totals.svg, the compare form, and the series report of a lab run's captures.
// It implements kind.Kind; the web root registers it.
package profiles
