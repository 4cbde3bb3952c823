package page

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

func FormatTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 MST") }

// CleanText makes user text safe to store and show: valid UTF-8, no control
// characters, trimmed to max runes.
func CleanText(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return -1
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max])
	}
	return s
}

func FirstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// SignedCount writes a change in goroutines with its sign: "+5", "-2", "0".
func SignedCount(n int) string {
	if n > 0 {
		return "+" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// Share renders part of whole as a percentage with one decimal.
func Share(part, whole int64) string {
	if whole == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", float64(part)*100/float64(whole))
}

// BarPct is v's share of the largest value, 0–100, at least 1 for any v > 0.
func BarPct(v, largest int64) int {
	if v <= 0 || largest <= 0 {
		return 0
	}
	return max(1, int(v*100/largest))
}

func OneOrMany(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Display makes text from a log shown as text: valid UTF-8, and control
// characters (NUL, escape…) as their visible Unicode pictures, so nothing is
// silently dropped or reinterpreted by the browser. Escaping is templ's job.
func Display(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r == utf8.RuneError || (unicode.IsControl(r) && r != '\t') }) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				b.WriteRune('\uFFFD')
			} else {
				b.WriteRune(r)
			}
		case r < 0x20 && r != '\t':
			b.WriteRune(0x2400 + r)
		case r == 0x7f:
			b.WriteRune('\u2421')
		case unicode.IsControl(r) && r != '\t':
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Short cuts s to at most n runes, with an ellipsis.
func Short(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// DefaultRows is how many rows a table shows before "show all".
const DefaultRows = 50
