package logs

import "github.com/leakui/leakui/analyze/logline"

// Levels, in the order reports list them: a line's level is what
// logline.Level finds in it (the overview's word scan calls logline.Klog and
// logline.Word itself), LevelNone for lines without one.
const (
	LevelFatal = logline.LevelFatal
	LevelError = logline.LevelError
	LevelWarn  = logline.LevelWarn
	LevelInfo  = logline.LevelInfo
	LevelDebug = logline.LevelDebug
	LevelTrace = logline.LevelTrace
	LevelNone  = logline.LevelNone
	// NumLevels is the number of levels, LevelNone included.
	NumLevels = logline.NumLevels
)

// LevelNames names the levels, LevelNone as "none".
var LevelNames = [NumLevels]string{"FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE", "none"}

// levelScan is how far into a line a level word may start.
const levelScan = logline.LevelScan
