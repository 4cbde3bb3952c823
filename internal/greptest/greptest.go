// Package greptest runs the real GNU grep as the anchor of the tests that count
// lines: leakui's counts must equal `grep -c`.
package greptest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Count runs `LC_ALL=C grep -c -a -F` (or -E when regexp is set) on a file and
// returns its count: -a so NUL bytes do not make it a "binary file", LC_ALL=C so
// it matches bytes. The pattern goes through a file (an argument cannot hold a NUL
// byte). grep exits 1 when nothing matches, a count of 0, not an error.
func Count(tb testing.TB, pattern string, regexp bool, path string) int64 {
	tb.Helper()
	mode := "-F"
	if regexp {
		mode = "-E"
	}
	pf := filepath.Join(tb.TempDir(), "pattern")
	if err := os.WriteFile(pf, []byte(pattern+"\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command("grep", "-c", "-a", mode, "-f", pf, "--", path)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		err = nil
	}
	if err != nil {
		tb.Fatalf("grep %s %q %s: %v", mode, pattern, path, err)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		tb.Fatalf("grep output %q: %v", out, err)
	}
	return n
}

// Lines is grep's count of a file's lines (every line matches the empty pattern).
func Lines(tb testing.TB, path string) int64 { return Count(tb, "", false, path) }
