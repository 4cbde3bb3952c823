package pprof

import (
	"io"

	"github.com/leakui/leakui/analyze"
)

// Load and LoadWithin are the two entry points Open replaced, kept for the
// tests of the flame graph files (being rewritten on their own branch) so that
// they need no change: a profile read once from r, held in memory.
func Load(r io.Reader, limit int64) (*Profile, error) {
	return Open(Reader(r), Options{Limit: limit})
}

func LoadWithin(r io.Reader, limit int64, budget *analyze.Budget) (*Profile, error) {
	return Open(Reader(r), Options{Limit: limit, Budget: budget})
}
