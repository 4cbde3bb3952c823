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

// TestPlural checks the one plural helper the analyses' sentences share: the
// singular for exactly one, regular English plurals, thousands separators.
func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n    int64
		noun string
		want string
	}{
		{1, "goroutine", "1 goroutine"},
		{0, "goroutine", "0 goroutines"},
		{100, "goroutine", "100 goroutines"},
		{20161, "goroutine", "20,161 goroutines"},
		{-1, "instance", "-1 instance"},
		{2, "class", "2 classes"},
		{1, "class", "1 class"},
		{3, "category", "3 categories"},
		{2, "day", "2 days"},
		{2, "match", "2 matches"},
		{2, "step", "2 steps"},
	} {
		if got := Plural(c.n, c.noun); got != c.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
	if got := PluralWord(2, "child", "children"); got != "2 children" {
		t.Errorf("PluralWord = %q", got)
	}
}
