// Package pprof reads Go profiles and computes what `go tool pprof` prints about
// them: the top table and its -top text, diffs (-diff_base), pprof's sample
// filters (-focus, -ignore, -hide, -show, -tagfocus, -tagignore), the labels
// (-tags), the call graph (-dot), flame graphs, one function's callers and
// callees, and the series of several profiles over time.
//
// There is one way in, Open, as pprof has profile.Parse: it takes a Source (a
// File, which the profile may read again, or a Reader, read once) and Options (the
// limit on the decompressed bytes and the memory budget everything is charged
// to, nil being unbounded), and returns a Profile. Where the profile's samples
// live is the profile's own choice: a large profile.proto file is streamed (its
// tables held, its samples decoded again from the file for each walk), anything
// else is decoded into memory by leakui's own decoder; the reports that must equal
// pprof's and need what that decoder leaves out (legacy formats, unsymbolized
// frames, labels, addresses) read the bytes again with pprof's own parser. A
// filtered profile is a Profile too (Filter), whose reports keep pprof's
// percentages of the whole profile.
//
// The code that must print what pprof prints is ported from pprof (Go's
// vendored copy, which `go tool pprof` runs), each file naming its source; see
// NOTICE.
package pprof
