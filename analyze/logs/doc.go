// Package logs counts what a text log says: exact patterns and regexps, start/close pairs and the keys never closed, counts over time, with presets for known leaks.
//
// On amd64 with AVX2, assembly (find_amd64.s, newline_amd64.s,
// skeleton_amd64.s) finds pattern pairs, line ends and cached line
// skeletons; it reads the package's constants and struct layout from
// go_asm.h, and each routine has a Go twin its fuzz target holds it to. The
// purego build tag leaves the assembly out: `go test -tags purego` runs the
// Go twins alone.
//
// It owns the counting (Count) of literal patterns (an AVX2 literal scan on
// amd64) and regexps; pairs (not measurable without a line; falling back to the
// counts when a key was started again while open), their keys and spans (the
// time from one line to another); time buckets; the presets; and the overview
// of every line (CountOptions.Overview): levels and
// message templates whose regexps count what `grep -cE` does (template.go,
// overview.go; the fast path template_fast.go, the skeleton cache
// template_skeleton.go). A line's timestamp and level are read by
// analyze/logline, which the sniffer (analyze.LogShape) shares, so that what
// is taken for a log is what this package finds timestamps or levels in.
package logs
