package analyze

import (
	"bytes"
	"fmt"
)

// What looks like a log. Text of no other kind is a log when at least one in
// LogShareDenominator of the non-blank lines of its first SniffSize bytes
// carries a timestamp or a level near its start, as log lines do and prose,
// tables and source code do not (stack frames and a configuration dump
// between them are fine: a Kafka broker's 200-line KafkaConfig block leaves
// 43% of its first 64 KiB marked). Other text is refused as "text, not a
// log", naming the share.
const (
	// LogShareDenominator: at least 1 in 5 of them must carry a mark.
	LogShareDenominator = 5
	// logMarkScan is how far into a line a timestamp or level may start.
	logMarkScan = 100
)

// LogShape counts, over the non-blank lines of head (its first SniffSize
// bytes), the lines looked at and those that carry a timestamp or a level word in their
// first logMarkScan bytes. A last line cut by the end of head counts only
// when head holds nothing else.
func LogShape(head []byte) (lines, marked int) {
	if len(head) > SniffSize {
		head = head[:SniffSize]
	}
	rest := head
	for len(rest) > 0 {
		line := rest
		i := bytes.IndexByte(rest, '\n')
		if i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
			if len(head) == SniffSize && lines > 0 {
				break // cut by the sniff limit
			}
		}
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		lines++
		if logMarked(line[:min(len(line), logMarkScan)]) {
			marked++
		}
	}
	return lines, marked
}

// looksLikeLog applies the rule to head: nil when it reads as a log, else the
// detection that refuses it.
func looksLikeLog(head []byte) *Detection {
	lines, marked := LogShape(head)
	if lines > 0 && marked*LogShareDenominator >= lines {
		return nil
	}
	return &Detection{Kind: KindUnknown, Format: fmt.Sprintf("text, not a log (%d of its first %d lines carry a timestamp or a level; a log has at least 1 in %d)",
		marked, lines, LogShareDenominator)}
}

// logMarked reports whether a line's head has a timestamp (a clock time
// h:mm:ss or hh:mm:ss, a date yyyy-mm-dd or yyyy/mm/dd, yyMMdd HHmmss or
// epoch seconds or milliseconds at its start) or a level word (see
// logLevelWords) standing alone.
func logMarked(s []byte) bool {
	if epochStart(s) || compactStart(s) {
		return true
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i > 0 && isWordByte(s[i-1]) {
			continue
		}
		if isDigitByte(c) {
			if clockAt(s[i:]) || dateAt(s[i:]) {
				return true
			}
			continue
		}
		if !isLetterByte(c) {
			continue
		}
		j := i
		for j < len(s) && isLetterByte(s[j]) {
			j++
		}
		if (j == len(s) || !isWordByte(s[j])) && logLevelWords[string(s[i:j])] {
			return true
		}
		i = j - 1
	}
	return false
}

// logLevelWords are the level words of the log analyzer (analyze/logs), in
// upper or lower case as it reads them.
var logLevelWords = map[string]bool{}

func init() {
	for _, w := range []string{"FATAL", "fatal", "CRIT", "crit", "CRITICAL", "critical", "PANIC", "panic", "EMERG", "emerg", "ALERT", "FTL",
		"ERROR", "error", "EROR", "ERR", "SEVERE",
		"WARN", "warn", "WARNING", "warning", "WRN",
		"INFO", "info", "INF", "NOTICE", "notice",
		"DEBUG", "debug", "DBUG", "DBG", "FINE",
		"TRACE", "trace", "TRCE", "VRB", "FINER", "FINEST"} {
		logLevelWords[w] = true
	}
}

// clockAt: h:mm:ss or hh:mm:ss.
func clockAt(s []byte) bool {
	n := digitRun(s)
	if n != 1 && n != 2 {
		return false
	}
	s = s[n:]
	return len(s) >= 6 && s[0] == ':' && digitRun(s[1:]) == 2 && s[3] == ':' && digitRun(s[4:]) >= 2
}

// dateAt: yyyy-mm-dd or yyyy/mm/dd.
func dateAt(s []byte) bool {
	return len(s) >= 10 && digitRun(s) == 4 && (s[4] == '-' || s[4] == '/') && digitRun(s[5:]) == 2 && s[7] == s[4] && digitRun(s[8:]) >= 2
}

// epochStart: 10 or 13 digits at the line's start, then no other digit.
func epochStart(s []byte) bool {
	n := digitRun(s)
	return (n == 10 || n == 13) && s[0] == '1'
}

// compactStart: yyMMdd HHmmss at the line's start (HDFS).
func compactStart(s []byte) bool {
	return len(s) >= 13 && digitRun(s) == 6 && s[6] == ' ' && digitRun(s[7:]) == 6
}

func digitRun(s []byte) int {
	n := 0
	for n < len(s) && isDigitByte(s[n]) {
		n++
	}
	return n
}

func isDigitByte(c byte) bool  { return c >= '0' && c <= '9' }
func isLetterByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isWordByte(c byte) bool   { return isDigitByte(c) || isLetterByte(c) || c == '_' }
