// Package analyze is leakui's pure analysis over bytes and readers: it detects what a
// file is (profile, goroutine dump, log, JVM dumps), decompresses gzip and zstd within
// a size limit, loads pprof profiles and computes what `go tool pprof` would print
// about them, and does the forensics on top (diffs, flame graphs, series, goroutine
// groups, log counts).
//
// It knows nothing of HTTP, storage or workloads; every function takes bytes or
// readers and returns values, so the web server, the command line and the tests all
// call the same code.
package analyze
