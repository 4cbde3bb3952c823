package view

import "testing"

// TestChangeClassColoursGrowthRedDecreaseGreenNothingGrey checks the one rule
// every change cell follows: red grew, green shrank, grey for no change ("0 B"
// is not a decrease).
func TestChangeClassColoursGrowthRedDecreaseGreenNothingGrey(t *testing.T) {
	for _, c := range []struct {
		grew bool
		text string
		want string
	}{
		{true, "+1.4 GB", "grow"},
		{false, "-2.0 MB", "shrink"},
		{false, "−3", "shrink"},
		{false, "0 B", ""},
		{false, "0", ""},
		{false, "+0", ""},
		{false, "0.00 ms", ""},
		{false, "±0 B", ""},
	} {
		if got := changeClass(c.grew, c.text); got != c.want {
			t.Errorf("changeClass(%v, %q) = %q, want %q", c.grew, c.text, got, c.want)
		}
	}
}
