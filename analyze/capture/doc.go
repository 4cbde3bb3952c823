// Package capture owns leakui's capture bundles: what `leakui capture jvm` and
// `leakui capture go` write (a gzip-compressed tar whose first file is a manifest
// that time-stamps every step, then each step's output), the bounded reader that
// refuses hostile archives (Read), the parsers of the /proc files a bundle holds
// (ParseStatus, ParseSmapsRollup, ResidentIn), and the report of one or more
// bundles of one process (Analyze): for a JVM, the native memory it does not track
// (package analyze/jvm's AnalyzeNative over each bundle's /proc files, NMT summary,
// heap and class histogram); for a Go process, its heap, goroutines and memory
// statistics over time (package analyze/pprof's profiles and series).
//
// It reads bytes and writes bytes: running jcmd, reading /proc and fetching a
// pprof endpoint is cmd/leakui's.
package capture
