package logline

// Levels, in the order reports list them. A line's level is the first level
// word among its words that start in its first LevelScan bytes, as the
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

// LevelScan is how far into a line a level word may start.
const LevelScan = 100

// Word returns the level a word names, or LevelNone. Words are
// matched in upper or lower case, not mixed, so that a sentence's "Error"
// is not a level.
func Word(w []byte) int {
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

// Klog returns the level of a line that starts the klog way (one of I, W,
// E, F and four digits of month and day, then a space or the end), or
// LevelNone.
func Klog(line []byte) int {
	if len(line) < 5 || len(line) > 5 && line[5] != ' ' {
		return LevelNone
	}
	for _, c := range line[1:5] {
		if c < '0' || c > '9' {
			return LevelNone
		}
	}
	switch line[0] {
	case 'I':
		return LevelInfo
	case 'W':
		return LevelWarn
	case 'E':
		return LevelError
	case 'F':
		return LevelFatal
	}
	return LevelNone
}

// Level returns the level of a line (without its '\n'): the klog level it
// starts with, else the level of its first word that names one (Word) and
// starts in its first LevelScan bytes. A word is a maximal run of letters,
// digits, '.', '_' and '-', so "log.INFO" and "-info" are no level. A run
// of control characters ending the line is ignored; a control character
// other than tab before the level word hides it, as the analyzer stops
// reading words there.
func Level(line []byte) int {
	for len(line) > 0 && isControl(line[len(line)-1]) {
		line = line[:len(line)-1]
	}
	if l := Klog(line); l != LevelNone {
		return l
	}
	for i := 0; i < len(line) && i < LevelScan; {
		if !isWordByte(line[i]) {
			if isControl(line[i]) && line[i] != '\t' {
				return LevelNone
			}
			i++
			continue
		}
		s := i
		for i < len(line) && isWordByte(line[i]) {
			i++
		}
		if l := Word(line[s:i]); l != LevelNone {
			return l
		}
	}
	return LevelNone
}

// isWordByte reports whether c belongs to a word: [0-9A-Za-z_.-].
func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z' || c == '_' || c == '.' || c == '-'
}

// isControl reports whether c is a control character ([[:cntrl:]] in the
// C locale).
func isControl(c byte) bool { return c < 0x20 || c == 0x7f }

// Marked reports whether a line (without its '\n') has a timestamp (Time) or
// a level (Level): whether the log analyzer finds either in it.
func Marked(line []byte) bool {
	if Level(line) != LevelNone {
		return true
	}
	_, ok := Time(line)
	return ok
}
