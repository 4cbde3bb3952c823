package analyze

import "testing"

// TestFormatValues checks the renderings pages and the command line share, and
// that a change carries its sign: "+" only when it grew.
func TestFormatValues(t *testing.T) {
	for _, c := range []struct {
		v    int64
		unit string
		want string
		sign string
	}{
		{0, "bytes", "0 B", "0 B"},
		{512, "bytes", "512 B", "+512 B"},
		{-1536, "bytes", "-1.5 kB", "-1.5 kB"},
		{137 << 20, "bytes", "137.0 MB", "+137.0 MB"},
		{20161, "count", "20,161", "+20,161"},
		{-1234567, "", "-1,234,567", "-1,234,567"},
		{1500000, "nanoseconds", "1.50 ms", "+1.50 ms"},
	} {
		if got := FormatValue(c.v, c.unit); got != c.want {
			t.Errorf("FormatValue(%d, %q) = %q, want %q", c.v, c.unit, got, c.want)
		}
		if got := FormatSignedValue(c.v, c.unit); got != c.sign {
			t.Errorf("FormatSignedValue(%d, %q) = %q, want %q", c.v, c.unit, got, c.sign)
		}
	}
}
