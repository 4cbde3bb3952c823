package logline

import (
	"bytes"
	"math/rand"
	"os"
	"testing"

	"github.com/leakui/leakui/internal/fixtures"
)

// checkDayMemo holds DayMemo.Parse to Time on lines read in
// order, and returns how many lines had a timestamp.
func checkDayMemo(t *testing.T, lines [][]byte) int {
	t.Helper()
	var d DayMemo
	timed := 0
	for _, l := range lines {
		got, gotOK := d.Parse(l)
		want, wantOK := Time(l)
		if got != want || gotOK != wantOK {
			t.Fatalf("line %q: memo gives %d %v, Time %d %v", l, got, gotOK, want, wantOK)
		}
		if wantOK {
			timed++
		}
	}
	return timed
}

// TestDayMemoMatchesParseTime reads the testdata logs, then the same lines
// with bytes of their first 30 changed (other days, broken clocks, zones),
// through the overview's date memo and Time.
func TestDayMemoMatchesParseTime(t *testing.T) {
	var lines [][]byte
	for _, path := range fixtures.Glob(t, "logs", "*") {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, bytes.Split(b, []byte{'\n'})...)
	}
	if timed := checkDayMemo(t, lines); timed < len(lines)/2 {
		t.Fatalf("only %d of %d lines have a timestamp", timed, len(lines))
	}
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte("0123456789 T:.,-+/Z[]x")
	var mutated [][]byte
	for _, l := range lines {
		l = append([]byte(nil), l...)
		if len(l) > 0 && rng.Intn(3) == 0 {
			j := rng.Intn(min(len(l), 30))
			l[j] = alphabet[rng.Intn(len(alphabet))]
		}
		mutated = append(mutated, l)
	}
	checkDayMemo(t, mutated)
}
