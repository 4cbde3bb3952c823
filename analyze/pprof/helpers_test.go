package pprof

import (
	"errors"
	"testing"

	"github.com/leakui/leakui/internal/fixtures"
)

func isErr(err, target error) bool { return errors.Is(err, target) }

func fixturesGlob(t testing.TB, dir string) []string { return fixtures.Glob(t, dir, "*") }
