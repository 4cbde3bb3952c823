package analyze

import (
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// javaGrepLines runs the real GNU grep (the anchor tool) with -a and returns the matching
// lines of path; no match is an empty result, not an error.
func javaGrepLines(t *testing.T, pattern, path string, extra ...string) []string {
	t.Helper()
	args := append([]string{"-a"}, extra...)
	args = append(args, "--", pattern, path)
	out, err := exec.Command("grep", args...).Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return nil
	}
	if err != nil {
		t.Fatalf("grep %q %s: %v", pattern, path, err)
	}
	return strings.Split(strings.TrimRight(string(out), "\n"), "\n")
}

// javaGrepCount runs `grep -ac PATTERN PATH` and returns the count grep prints.
func javaGrepCount(t *testing.T, pattern, path string, extra ...string) int {
	t.Helper()
	args := append([]string{"-ac"}, extra...)
	args = append(args, "--", pattern, path)
	out, err := exec.Command("grep", args...).Output()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		t.Fatalf("grep -c %q %s: %v", pattern, path, err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("grep -c %q %s printed %q", pattern, path, out)
	}
	return n
}

// javaMustInt64 parses a decimal field the test took from an anchor's output.
func javaMustInt64(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		t.Fatalf("anchor field %q: %v", s, err)
	}
	return n
}
