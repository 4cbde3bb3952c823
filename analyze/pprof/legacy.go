package pprof

import (
	"io"

	"github.com/leakui/leakui/analyze"
)

// The entry points Open replaces, kept while the web moves to it.

// Load is Open(Reader(r), Options{Limit: limit}).
func Load(r io.Reader, limit int64) (*Profile, error) { return LoadWithin(r, limit, nil) }

// LoadWithin is Open(Reader(r), Options{Limit: limit, Budget: budget}).
func LoadWithin(r io.Reader, limit int64, budget *analyze.Budget) (*Profile, error) {
	return Open(Reader(r), Options{Limit: limit, Budget: budget})
}

// FilterWithin is Filter.
func (p *Profile) FilterWithin(f Filter, budget *analyze.Budget) (*Profile, FilterMatches, error) {
	return p.Filter(f, budget)
}
