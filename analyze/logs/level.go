package logs

// Levels, in the order reports list them. A line's level is the first level
// word among its words that start in its first levelScan bytes, as the
// common layouts write it: log4j and logback (`INFO`, `WARN`), Go's slog and
// logfmt (`level=INFO`, `level=info`), zap (`"level":"warn"`, `warn` between
// tabs), geth and Erigon (`[EROR]`, `DBUG`, `TRCE`, `CRIT`), Serilog (`[WRN]`,
// `[ERR]`), java.util.logging (`SEVERE`, `WARNING`, `FINE`), klog (`E0102`
// at the line start) and the loghub logs. Lines without one (stack frames,
// continuation lines) have LevelNone.
const (
	LevelFatal = iota
	LevelError
	LevelWarn
	LevelInfo
	LevelDebug
	LevelTrace
	LevelNone
	// NumLevels is the number of levels, LevelNone included.
	NumLevels
)

// LevelNames names the levels, LevelNone as "none".
var LevelNames = [NumLevels]string{"FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE", "none"}

// levelScan is how far into a line a level word may start.
const levelScan = 100

// levelWord returns the level a word names, or LevelNone. Words are
// matched in upper or lower case, not mixed, so that a sentence's "Error"
// is not a level.
func levelWord(w []byte) int {
	if len(w) < 3 || len(w) > 8 {
		return LevelNone
	}
	switch string(w) {
	case "FATAL", "fatal", "CRIT", "crit", "CRITICAL", "critical", "PANIC", "panic", "EMERG", "emerg", "ALERT", "FTL":
		return LevelFatal
	case "ERROR", "error", "EROR", "ERR", "SEVERE":
		return LevelError
	case "WARN", "warn", "WARNING", "warning", "WRN":
		return LevelWarn
	case "INFO", "info", "INF", "NOTICE", "notice":
		return LevelInfo
	case "DEBUG", "debug", "DBUG", "DBG", "FINE":
		return LevelDebug
	case "TRACE", "trace", "TRCE", "VRB", "FINER", "FINEST":
		return LevelTrace
	}
	return LevelNone
}

// klogLevel reports whether a line starts the klog way: one of I, W, E, F
// and four digits of month and day.
func klogLevel(line []byte) bool {
	switch line[0] {
	case 'I', 'W', 'E', 'F':
	default:
		return false
	}
	for _, c := range line[1:5] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(line) == 5 || line[5] == ' '
}

// levelKlog maps klog's level letter.
func levelKlog(c byte) int {
	switch c {
	case 'I':
		return LevelInfo
	case 'W':
		return LevelWarn
	case 'E':
		return LevelError
	}
	return LevelFatal
}
