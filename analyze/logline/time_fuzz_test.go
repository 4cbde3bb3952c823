package logline

import (
	"testing"
	"time"
)

// FuzzLogParseTime checks that any line parses without panicking and that a
// timestamp found is a real instant of years 0 to 9999.
func FuzzLogParseTime(f *testing.F) {
	for _, s := range []string{"2023-06-21 12:00:01.234 x", "[02-21|11:55:36.680]", "Jun  1 02:03:04", "1687305601.5", "081109 203615 x", "17/06/09 20:10:40"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		ms, ok := Time(line)
		if !ok {
			return
		}
		if y := time.UnixMilli(ms).UTC().Year(); y < 0 || y > 9999 {
			t.Fatalf("%q: year %d", line, y)
		}
	})
}
