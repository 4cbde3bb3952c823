package linechart

import (
	"math"
	"strconv"
	"strings"
)

// byteUnits are pprof's labels for powers of 1024.
var byteUnits = []string{"B", "kB", "MB", "GB", "TB", "PB", "EB"}

// FormatY labels a y tick in the chart's unit: bytes in pprof's units of 1024
// ("32 MB", "1.5 GB"), nanoseconds as seconds or their fractions, counts with
// thousands separators ("12,000").
func FormatY(v float64, unit string) string {
	switch unit {
	case "bytes":
		i, a := 0, math.Abs(v)
		for a >= 1024 && i < len(byteUnits)-1 {
			a /= 1024
			i++
		}
		return sign(v) + formatPlain(a) + " " + byteUnits[i]
	case "nanoseconds":
		a := math.Abs(v)
		for _, u := range []struct {
			d    float64
			name string
		}{{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}} {
			if a >= u.d {
				return sign(v) + formatPlain(a/u.d) + u.name
			}
		}
		return sign(v) + formatPlain(a) + "ns"
	}
	return formatPlain(v)
}

func sign(v float64) string {
	if v < 0 {
		return "-"
	}
	return ""
}

// formatPlain writes a number with at most two decimals (none when whole) and
// thousands separators.
func formatPlain(v float64) string {
	s := strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i := range len(whole) {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(whole[i])
	}
	if hasFrac {
		b.WriteString("." + frac)
	}
	return b.String()
}
