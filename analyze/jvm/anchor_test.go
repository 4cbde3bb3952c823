package jvm

import (
	"testing"

	"github.com/leakui/leakui/internal/greptest"
)

// grepCount runs `grep -ac PATTERN PATH` and returns the count grep prints.
func grepCount(t *testing.T, pattern, path string) int {
	return int(greptest.CountWith(t, "-a", "--", pattern, path))
}
