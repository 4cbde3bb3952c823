package jvm

import (
	"testing"

	"github.com/leakui/leakui/internal/greptest"
)

// javaGrepCount runs `grep -ac PATTERN PATH` and returns the count grep prints.
func javaGrepCount(t *testing.T, pattern, path string) int {
	return int(greptest.CountWith(t, "-a", "--", pattern, path))
}
