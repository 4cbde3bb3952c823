package spark

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestBlocks(t *testing.T) {
	for _, tc := range []struct {
		values []int64
		want   string
	}{
		{nil, ""},
		{[]int64{5}, "▁"},
		{[]int64{3, 3, 3}, "▁▁▁"},
		{[]int64{0, 7}, "▁█"},
		{[]int64{0, 1, 2, 3, 4, 5, 6, 7}, "▁▂▃▄▅▆▇█"},
		{[]int64{10, 0, 10}, "█▁█"},
		{[]int64{-9e18, 9e18}, "▁█"},
	} {
		if got := Blocks(tc.values); got != tc.want {
			t.Errorf("Blocks(%v) = %q, want %q", tc.values, got, tc.want)
		}
		if n := utf8.RuneCountInString(Blocks(tc.values)); n != len(tc.values) {
			t.Errorf("Blocks(%v) has %d characters, want one per value", tc.values, n)
		}
	}
}

func TestPoints(t *testing.T) {
	for _, tc := range []struct {
		values []int64
		want   string
	}{
		{nil, ""},
		{[]int64{4}, "0.0,10.0"},
		{[]int64{2, 2}, "0.0,10.0 100.0,10.0"},
		{[]int64{0, 5, 10}, "0.0,19.0 50.0,10.0 100.0,1.0"},
	} {
		if got := Points(tc.values, 100, 20); got != tc.want {
			t.Errorf("Points(%v) = %q, want %q", tc.values, got, tc.want)
		}
	}
	// Every point stays inside the box, whatever the values.
	for _, p := range strings.Fields(Points([]int64{-1 << 62, 0, 1 << 62, 7}, 100, 20)) {
		var x, y float64
		if _, err := fmtSscanf(p, &x, &y); err != nil || x < 0 || x > 100 || y < 1 || y > 19 {
			t.Errorf("point %q is outside the 100×20 box (%v)", p, err)
		}
	}
}

// fmtSscanf reads one "x,y" point.
func fmtSscanf(p string, x, y *float64) (int, error) { return fmt.Sscanf(p, "%g,%g", x, y) }
