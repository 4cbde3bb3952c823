package analyze

import (
	"fmt"
	"strconv"
	"strings"
)

// FormatBytes renders a byte count the way go tool pprof does, in units of 1024
// labelled B, kB, MB, GB…, such as "137.0 MB" or "512 B", so that a page and pprof
// show the same figure.
func FormatBytes(n int64) string {
	return formatScaled(n, 1024, []string{"B", "kB", "MB", "GB", "TB", "PB", "EB"})
}

// FormatValue renders a sample value with its unit: bytes human-readable,
// nanoseconds as a duration, anything else as a plain number with thousands
// separators.
func FormatValue(v int64, unit string) string {
	switch unit {
	case "bytes":
		return FormatBytes(v)
	case "nanoseconds":
		return formatNanos(v)
	}
	return FormatCount(v)
}

// FormatSignedValue is FormatValue with an explicit "+" on a positive value, for
// changes: "+1.5 MB", "-3", "0".
func FormatSignedValue(v int64, unit string) string {
	if v > 0 {
		return "+" + FormatValue(v, unit)
	}
	return FormatValue(v, unit)
}

// FormatCount renders an integer with thousands separators, such as "20,161".
func FormatCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3+1)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

func formatScaled(n int64, base float64, units []string) string {
	neg := n < 0
	v := float64(n)
	if neg {
		v = -v
	}
	i := 0
	for v >= base && i < len(units)-1 {
		v /= base
		i++
	}
	sign := ""
	if neg {
		sign = "-"
	}
	if i == 0 {
		return fmt.Sprintf("%s%d %s", sign, int64(v), units[0])
	}
	return fmt.Sprintf("%s%.1f %s", sign, v, units[i])
}

func formatNanos(n int64) string {
	neg := n < 0
	v := float64(n)
	if neg {
		v = -v
	}
	sign := ""
	if neg {
		sign = "-"
	}
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%s%.2f s", sign, v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%s%.2f ms", sign, v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%s%.2f µs", sign, v/1e3)
	}
	return fmt.Sprintf("%s%d ns", sign, n)
}

// Percent renders part of total as a percentage with two decimals, as pprof does
// ("91.41%"): of the absolute value, so that a negative flat value of a diff or
// of a profile with negative samples reads "80.00%" as in `go tool pprof -top`.
// A zero total gives "0%". SignedPercent keeps the sign.
func Percent(part, total int64) string {
	return SignedPercent(abs64(part), abs64(total))
}

// SignedPercent renders part of total as a signed percentage with two decimals,
// for changes ("-12.50%"); a zero total gives "0%".
func SignedPercent(part, total int64) string {
	if total == 0 {
		return "0%"
	}
	p := float64(part) * 100 / float64(total)
	switch {
	case p == 0:
		return "0%"
	case p == 100 || p == -100:
		return fmt.Sprintf("%.0f%%", p)
	}
	return fmt.Sprintf("%.2f%%", p)
}

// abs64 returns |v|.
func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// Plural renders a count with its noun, in the singular for exactly one (or minus
// one) and in the plural otherwise, the count with thousands separators: "1
// goroutine", "0 goroutines", "20,161 goroutines", "2 classes", "3 categories".
// The plural is the noun with "es" after s, x, z, ch and sh, "ies" for a "y"
// after a consonant, else "s"; PluralWord takes an irregular plural.
func Plural(n int64, noun string) string {
	return PluralWord(n, noun, pluralOf(noun))
}

// PluralWord is Plural with the plural given: PluralWord(2, "child", "children").
func PluralWord(n int64, singular, plural string) string {
	if n == 1 || n == -1 {
		return FormatCount(n) + " " + singular
	}
	return FormatCount(n) + " " + plural
}

// pluralOf forms the regular plural of an English noun.
func pluralOf(noun string) string {
	switch {
	case noun == "":
		return noun
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "z"),
		strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return noun + "es"
	case len(noun) > 1 && noun[len(noun)-1] == 'y' && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])):
		return noun[:len(noun)-1] + "ies"
	}
	return noun + "s"
}
