package logline

import (
	"strings"
	"testing"
)

// TestLevelWords pins what makes a level word a line's level: a word of its
// own (letters, digits, '.', '_' and '-' join words) in upper or lower case,
// starting in the first LevelScan bytes, before any control character but
// those ending the line; and klog's letter at the line's start.
func TestLevelWords(t *testing.T) {
	for _, c := range []struct {
		line  string
		level int
	}{
		{"[INFO] x", LevelInfo},
		{"level=warn msg=x", LevelWarn},
		{"\tERROR\tx", LevelError},
		{"Error while reading", LevelNone},
		{"log.INFO x", LevelNone},
		{"see -info and the error.", LevelNone},
		{"INFO2 x", LevelNone},
		{"ÉERROR x", LevelError}, // a multi-byte character parts words
		{strings.Repeat("x", 98) + " ERROR", LevelError},
		{strings.Repeat("x", 99) + " ERROR", LevelNone},
		{"a\x01 ERROR", LevelNone},
		{"ERROR x\x01\r", LevelError},
		{"E0102 15:04:05.000000 1 main.go:42] x", LevelError},
		{"F0102", LevelFatal},
		{"W0102x", LevelNone},
		{"X0102 x", LevelNone},
		{"I0102 WARN x", LevelInfo},
	} {
		if got := Level([]byte(c.line)); got != c.level {
			t.Errorf("%q: level %d, want %d", c.line, got, c.level)
		}
	}
}

// TestMarked: a line is marked by a level or by a timestamp Time reads, not by
// a clock or a date alone.
func TestMarked(t *testing.T) {
	for _, c := range []struct {
		line   string
		marked bool
	}{
		{"2024-07-21 12:01:02 started", true},
		{"Jun  1 02:03:04 host kernel: x", true},
		{"[02-21|11:55:36.680] x", true},
		{"1687305601 GET /x", true},
		{"WARN x", true},
		{"12:01:02 started", false},
		{"released on 2024-07-21", false},
		{"2024/07/21 something", false},
		{"took 0:01:02", false},
		{"", false},
	} {
		if got := Marked([]byte(c.line)); got != c.marked {
			t.Errorf("%q: marked %v, want %v", c.line, got, c.marked)
		}
	}
}
