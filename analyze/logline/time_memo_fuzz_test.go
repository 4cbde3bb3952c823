package logline

import (
	"bytes"
	"testing"
)

// FuzzDayMemo holds the overview's date memo to Time on the lines of
// random inputs, read in order (see checkDayMemo).
func FuzzDayMemo(f *testing.F) {
	f.Add([]byte("2023-06-21 00:00:00.066 a\n2023-06-21 00:00:01,5+02:00 b\n2023-06-21T23:59:60Z\n2023-06-21 99:00:00\n2023-06-22 00:00:00\nx 2023-06-22 00:00:01\n"))
	f.Add([]byte("2023-06-21 00:00:00.066 a\n2023-06-21 00:00:00,5+02:00 b\n2023-06-21 00:00:00Z\n2023-06-21 00:00:00-0130\n2023-06-22 00:00:00.1\n2023-06-22 00:00:00\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		checkDayMemo(t, bytes.Split(in, []byte{'\n'}))
	})
}
