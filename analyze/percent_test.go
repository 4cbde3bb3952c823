package analyze

import "testing"

// TestPercentIsPprofs: pprof prints the percentage of the absolute value (a
// shrink of 4096 bytes of a 5120-byte total is "80.00%" in `go tool pprof
// -top`, see the hostile corpus's negative-values.pb.gz); a change keeps its sign.
func TestPercentIsPprofs(t *testing.T) {
	for _, tc := range []struct {
		part, total int64
		pct, signed string
	}{
		{-4096, 5120, "80.00%", "-80.00%"},
		{1024, 5120, "20.00%", "20.00%"},
		{-3072, 5120, "60.00%", "-60.00%"},
		{-5120, 5120, "100%", "-100%"},
		{0, 5120, "0%", "0%"},
		{7, 0, "0%", "0%"},
	} {
		if got := Percent(tc.part, tc.total); got != tc.pct {
			t.Errorf("Percent(%d, %d) = %s, want %s", tc.part, tc.total, got, tc.pct)
		}
		if got := SignedPercent(tc.part, tc.total); got != tc.signed {
			t.Errorf("SignedPercent(%d, %d) = %s, want %s", tc.part, tc.total, got, tc.signed)
		}
	}
}
