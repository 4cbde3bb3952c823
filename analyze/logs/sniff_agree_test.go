package logs

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/fixtures"
)

// TestSnifferAgreesLineByLine: on every line of every testdata log, and of
// the README, the docs and go.sum (which the sniffer refuses), the sniffer
// (analyze.LogShape of the line alone) marks a line exactly when the
// overview finds a level or a timestamp in it, through the same paths a
// count takes (the skeleton cache, the fast path, the masker, the date memo).
func TestSnifferAgreesLineByLine(t *testing.T) {
	paths := fixtures.Glob(t, "logs", "*")
	for _, g := range []string{"../../README.md", "../../docs/*.md", "../../go.sum"} {
		m, _ := filepath.Glob(g)
		paths = append(paths, m...)
	}
	if len(paths) < 15 {
		t.Fatalf("only %d files", len(paths))
	}
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := newLogScanner(&countPlan{}, 0, 0)
		ov := &overviewPart{table: newLogTemplateTable()}
		lines, marked, differ := 0, 0, 0
		for i, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
			level, _ := sc.template(ov, line, int64(i), false)
			_, timed := sc.days.Parse(line)
			analyzed := level != LevelNone || timed
			n, m := analyze.LogShape(line)
			if n == 0 {
				continue // a blank line: the sniffer does not count it
			}
			lines++
			if m == 1 {
				marked++
			}
			if (m == 1) != analyzed {
				differ++
				if differ <= 5 {
					t.Errorf("%s:%d: sniffer marks %v, overview level %s time %v: %q", filepath.Base(path), i+1, m == 1, LevelNames[level], timed, line[:min(len(line), 120)])
				}
			}
		}
		t.Logf("%s: %d lines, %d marked, %d differ", filepath.Base(path), lines, marked, differ)
	}
}
