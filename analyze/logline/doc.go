// Package logline recognises the timestamp and the level of one log line.
//
// It is the one judge of both: the log analyzer (analyze/logs) reads each
// line's timestamp (Time, or DayMemo on lines read in order) and level
// (Level, or Klog and Word inside its own word scan), and the sniffer
// (analyze.LogShape) counts the lines that have either (Marked), so that a
// text is taken for a log exactly when the analyzer will find timestamps or
// levels in enough of its lines. It imports nothing of the project.
package logline
