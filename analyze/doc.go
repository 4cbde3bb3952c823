// Package analyze is the root of leakui's pure analysis over bytes and readers: it detects what a
// file is (profile, goroutine dump, log, JVM dumps), decompresses gzip and zstd within
// a size limit, formats values the way `go tool pprof` prints them, and holds the
// sentinel errors every analysis returns.
//
// The analyses themselves live in one subpackage per kind of evidence: pprof
// (profiles: top, diff, filters, flame graphs, profile series), goroutines
// (goroutine dumps), logs (log counts), jvm (JVM histograms, thread dumps and
// native memory summaries) and series (the statistics of values over time). Each
// imports this package for its errors; this package imports none of them.
//
// It knows nothing of HTTP, storage or workloads; every function takes bytes or
// readers and returns values, so the web server, the command line and the tests all
// call the same code.
package analyze
