package main

import (
	"testing"

	"github.com/leakui/leakui/internal/fixtures"
)

// TestDiffTiesPrintAsPprofPrintsThem: where two rows of a diff print the same
// name and flat ([libc-2.15.so] and [libpthread-2.15.so] under two paths),
// go tool pprof has no one order: its sort calls them equal and they come from
// a map, so its text differs from run to run. `leakui diff` prints one order
// every time, and that text is byte for byte one go tool pprof prints: the
// test runs pprof until it prints leakui's text (about one run in five does;
// 40 runs of each pair printed 4 different texts).
func TestDiffTiesPrintAsPprofPrintsThem(t *testing.T) {
	a := fixtures.Path(t, "pprof", "google-pprof-cppbench-legacy-text-growthz.heap")
	b := fixtures.Path(t, "pprof", "google-pprof-cppbench-legacy-text-heapz_v2.heap")
	for _, pair := range [][2]string{{a, b}, {b, a}} {
		code, got, errs := runCLI(t, "diff", "-nodefraction=0", pair[0], pair[1])
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if _, again, _ := runCLI(t, "diff", "-nodefraction=0", pair[0], pair[1]); again != got {
			t.Fatal("leakui diff printed two texts for one pair")
		}
		seen := map[string]bool{}
		for run := 0; run < 100 && !seen[got]; run++ {
			seen[goToolPprof(t, "-top", "-symbolize=none", "-nodefraction=0", "-diff_base="+pair[0], pair[1])] = true
		}
		if !seen[got] {
			t.Errorf("in 100 runs go tool pprof printed %d texts, never leakui's:\n%s", len(seen), got)
		}
	}
}
