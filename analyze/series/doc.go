// Package series decides whether values taken over time leak: per-name trends, their statistics and a verdict with suspects, fed by profiles and JVM histograms.
//
// A suspect must pass the floor of growth (package analyze's SuspectMin*). The
// verdict never reassures on thin evidence: below the snapshots the trend test
// needs it is inconclusive (Report.Needed). The goroutineleak proof and the
// input's warnings are carried into the report.
package series
