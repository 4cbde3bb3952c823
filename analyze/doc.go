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
//
// What the root owns: kind detection from content (DetectKind, Sniff over the
// first SniffSize bytes; UTF-16 text without its byte order mark is named as such;
// a capture bundle is told by its tar's first entry, leakui's manifest.json), log
// collectors' line prefixes (DetectLinePrefix, StripLinePrefix: kubectl, journald,
// Docker JSON), capped gzip and zstd decompression with UTF-16 transcoding
// (Decompress, SizeHint), the memory budgets analyses charge before they allocate,
// per analysis and shared by the process (Budget), values formatted as pprof
// prints them and the one plural helper of every sentence (Plural, PluralWord),
// the floor of growth a leak suspect needs in every kind (SuspectMinShare,
// SuspectMinCount, SuspectMinBytes, SuspectMinGrowth), and the sentinel errors.
//
// The web package maps the errors to statuses: ErrEmpty and ErrInvalidParameter
// 400, ErrTooLarge 413, ErrUnsupportedKind 415, ErrMalformed and ErrMismatch 422,
// ErrBusy 503 with Retry-After (the shared memory budget is held by other
// analyses).
package analyze
