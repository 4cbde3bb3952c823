// Package logs counts what a text log says: exact patterns and regexps, start/close pairs and the keys never closed, counts over time, with presets for known leaks.
//
// On amd64 with AVX2, assembly (find_amd64.s, newline_amd64.s,
// skeleton_amd64.s) finds pattern pairs, line ends and cached line
// skeletons; it reads the package's constants and struct layout from
// go_asm.h, and each routine has a Go twin its fuzz target holds it to. The
// purego build tag leaves the assembly out: `go test -tags purego` runs the
// Go twins alone.
package logs
