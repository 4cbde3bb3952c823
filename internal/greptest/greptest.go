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

	"github.com/leakui/leakui/internal/testtool"
)

// grepPath returns grep's path, or skips the test (fails it in CI) when grep is
// missing.
func grepPath(tb testing.TB) string {
	tb.Helper()
	return testtool.Require(tb, "grep", "grep")
}

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
	cmd := exec.Command(grepPath(tb), "-c", "-a", mode, "-f", pf, "--", path)
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

// Output runs `LC_ALL=C grep args...` and returns the lines it printed. Exit status
// 1 (no line selected) is not an error: the result is then what grep printed,
// nothing at all, or with -c a count of 0.
func Output(tb testing.TB, args ...string) []string {
	tb.Helper()
	cmd := exec.Command(grepPath(tb), args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		err = nil
	}
	if err != nil {
		tb.Fatalf("grep %q: %v", args, err)
	}
	if len(out) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
}

// CountWith runs `LC_ALL=C grep -c args...` on one file and returns the count it
// printed.
func CountWith(tb testing.TB, args ...string) int64 {
	tb.Helper()
	lines := Output(tb, append([]string{"-c"}, args...)...)
	if len(lines) != 1 {
		tb.Fatalf("grep -c %q printed %q, want one count", args, lines)
	}
	return Int(tb, lines[0])
}

// Int parses a decimal number a test took from an anchor's output, such as a
// count grep printed or a field of a Total line.
func Int(tb testing.TB, s string) int64 {
	tb.Helper()
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		tb.Fatalf("anchor field %q: %v", s, err)
	}
	return n
}

// UTF8Copy runs `iconv -f from -t UTF-8` on a file (from "UTF-16" reads the byte
// order mark) and returns the path of a temporary file with its output, so that grep
// can count the UTF-8 text leakui reads from a UTF-16 file.
func UTF8Copy(tb testing.TB, from, path string) string {
	tb.Helper()
	iconv := testtool.Require(tb, "iconv", "iconv")
	out, err := exec.Command(iconv, "-f", from, "-t", "UTF-8", path).Output()
	if err != nil {
		tb.Fatalf("iconv -f %s -t UTF-8 %s: %v", from, path, err)
	}
	dst := filepath.Join(tb.TempDir(), filepath.Base(path)+".utf8")
	if err := os.WriteFile(dst, out, 0o644); err != nil {
		tb.Fatal(err)
	}
	return dst
}
