package pprof

import (
	"errors"
	"testing"

	"github.com/leakui/leakui/internal/fixtures"
)

func isErr(err, target error) bool { return errors.Is(err, target) }

// mustTop is p.Top, failing the test on an error.
func mustTop(t testing.TB, p *Profile, si int) TopResult {
	t.Helper()
	top, err := p.Top(si)
	if err != nil {
		t.Fatal(err)
	}
	return top
}

func fixturesGlob(t testing.TB, dir string) []string { return fixtures.Glob(t, dir, "*") }

// mustFlame is p.Flame without a budget, failing the test on an error.
func mustFlame(t testing.TB, p *Profile, si int, minFraction float64) FlameGraph {
	t.Helper()
	fg, err := p.Flame(si, minFraction, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fg
}
