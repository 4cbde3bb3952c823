package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoroutinesSplitCreator checks `leakui goroutines -split creator`: one stack
// started from two goroutines is one group by default and two when split, in text
// and JSON; -split with a BASE or another value is a usage error.
func TestGoroutinesSplitCreator(t *testing.T) {
	dump := filepath.Join(t.TempDir(), "split.txt")
	text := "goroutine 10 [chan receive]:\nmain.worker()\n\t/src/main.go:10 +0x19\ncreated by main.start in goroutine 1\n\t/src/main.go:20 +0x1b\n\n" +
		"goroutine 11 [chan receive]:\nmain.worker()\n\t/src/main.go:10 +0x19\ncreated by main.start in goroutine 7\n\t/src/main.go:20 +0x1b\n"
	if err := os.WriteFile(dump, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runGoroutinesCLI(t, "", "goroutines", dump)
	if code != 0 || !strings.Contains(out, "2 goroutines in 1 group") || !strings.Contains(out, "created by main.start in 2 goroutines") {
		t.Errorf("by stack: exit %d\n%s", code, out)
	}
	code, out, _ = runGoroutinesCLI(t, "", "goroutines", "-split", "creator", dump)
	if code != 0 || !strings.Contains(out, "2 goroutines in 2 groups") || !strings.Contains(out, "in goroutine 1 ") || !strings.Contains(out, "in goroutine 7 ") {
		t.Errorf("split: exit %d\n%s", code, out)
	}
	code, out, _ = runGoroutinesCLI(t, "", "goroutines", "-json", "-split", "creator", dump)
	if j := decodeGoroutines(t, out); code != 0 || len(j.Groups) != 2 || !strings.Contains(out, `"split_by":"creator"`) {
		t.Errorf("split JSON: exit %d, %d groups\n%s", code, len(j.Groups), out)
	}
	for _, args := range [][]string{{"-split", "stack", dump}, {"-split", "creator", dump, dump}} {
		if code, _, _ := runGoroutinesCLI(t, "", append([]string{"goroutines"}, args...)...); code != 2 {
			t.Errorf("goroutines %v: exit %d, want 2", args, code)
		}
	}
}
