package watch

import (
	"strconv"
	"testing"
	"time"
)

// TestGrowthText: a growth over a window shorter than MinRateWindow is told
// as the change over the window, the rate times the window; from a minute
// on, and for an unknown window (0), per hour.
func TestGrowthText(t *testing.T) {
	format := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, c := range []struct {
		perHour float64
		window  time.Duration
		want    string
	}{
		{1_179_648_000, 6 * time.Second, "1966080 in 6 s"},
		{1_179_648_000, 850 * time.Millisecond, "278528 in 850 ms"},
		{-3600, 12 * time.Second, "-12 in 12 s"},
		{1_179_648_000, time.Minute, "1179648000 per hour"},
		{1_179_648_000, 0, "1179648000 per hour"},
		{5014, 59*time.Second + 400*time.Millisecond, "83 in 59 s"},
	} {
		if got := GrowthText(c.perHour, c.window, format); got != c.want {
			t.Errorf("GrowthText(%v, %s) = %q, want %q", c.perHour, c.window, got, c.want)
		}
	}
	if MinRateWindow != time.Minute {
		t.Errorf("MinRateWindow %s, want a minute, the series analysis' MinRateSpan", MinRateWindow)
	}
}
