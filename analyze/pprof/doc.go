// Package pprof loads Go profiles and computes what `go tool pprof` prints about them (top, diffs, filters, flame graphs) and the series of several profiles over time.
package pprof
