package store

import (
	"testing"
	"time"
)

// FuzzParseCursor: any text either is refused or reads back to a cursor that
// Cursor writes the same way.
func FuzzParseCursor(f *testing.F) {
	f.Add("1700000000000-" + NewID())
	f.Add("-")
	f.Add("12-abc")
	f.Add("-1-aaaaaaaaaaaaaaaaaaaaaaaaaa")
	f.Fuzz(func(t *testing.T, c string) {
		ms, id, err := parseCursor(c)
		if err != nil {
			return
		}
		again := Cursor(Report{ID: id, CreatedAt: time.UnixMilli(ms)})
		ms2, id2, err := parseCursor(again)
		if err != nil || ms2 != ms || id2 != id {
			t.Fatalf("%q read as %d %s, written as %q, read back as %d %s (%v)", c, ms, id, again, ms2, id2, err)
		}
	})
}
