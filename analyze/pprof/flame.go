package pprof

import (
	"fmt"

	"github.com/leakui/leakui/analyze"
)

// FlameNode is one box of a flame graph: a function at a position in the call tree,
// with the value of every sample whose stack passes through it.
type FlameNode struct {
	Name string `json:"name"`
	// Value is the node's value (the target's, in a diff).
	Value int64 `json:"value"`
	// Base is the base profile's value at the same position, in a diff.
	Base     int64        `json:"base,omitempty"`
	Children []*FlameNode `json:"children,omitempty"`
}

// FlameGraph is a call tree ready to draw: root at the top, children ordered by
// name, boxes narrower than MinFraction of the root dropped and accounted for in
// Hidden (see FlameCut, which it is built from).
type FlameGraph struct {
	SampleType string     `json:"sample_type"`
	Unit       string     `json:"unit"`
	Total      int64      `json:"total"`
	BaseTotal  int64      `json:"base_total,omitempty"`
	Diff       bool       `json:"diff,omitempty"`
	Root       *FlameNode `json:"root"`
	// Nodes is the number of boxes kept. Dropped is the number of the target's
	// nodes (or the one profile's) left out, whose values add up to Hidden, and
	// BaseDropped the number of the base's, in a diff.
	Nodes       int     `json:"nodes"`
	Dropped     int     `json:"dropped"`
	BaseDropped int     `json:"base_dropped,omitempty"`
	Hidden      int64   `json:"hidden"`
	MinFraction float64 `json:"min_fraction"`
}

// DefaultFlameFraction keeps boxes of at least 1/20,000 of the total: a few
// thousand boxes even for profiles of hundreds of thousands of stacks, and detail
// left for a few levels of zoom.
const DefaultFlameFraction = 1.0 / 20000

// Flame builds the flame graph of one sample type within a memory budget (nil:
// unbounded): its tree is built within it (FlameTree), and nothing stays
// charged.
func (p *Profile) Flame(sampleIndex int, minFraction float64, budget *analyze.Budget) (FlameGraph, error) {
	t, err := p.FlameTree(sampleIndex, budget)
	if err != nil {
		return FlameGraph{}, err
	}
	return CutFlame(t, minFraction).Graph(), nil
}

// DiffFlame builds a differential flame graph within a memory budget (nil:
// unbounded), as Flame: every box carries the target's value and the base's at
// the same position, for colouring by growth (see CutDiffFlame). It builds
// both trees; a caller that keeps trees cuts the diff from them instead
// (CutDiffFlame), without walking the profiles.
func DiffFlame(base, target *Profile, sampleIndex int, minFraction float64, budget *analyze.Budget) (FlameGraph, error) {
	if !base.SameType(target) {
		b, t := MismatchNames(base, target)
		return FlameGraph{}, fmt.Errorf("%w: the base measures %s and the target %s", analyze.ErrMismatch, b, t)
	}
	b := budget.Child(budget.Remaining())
	defer b.Release()
	tt, err := target.FlameTree(sampleIndex, b)
	if err != nil {
		return FlameGraph{}, err
	}
	// The target's tree stays charged while the base's is built.
	if err := b.Charge(tt.MemSize()); err != nil {
		return FlameGraph{}, err
	}
	bt, err := base.FlameTree(sampleIndex, b)
	if err != nil {
		return FlameGraph{}, err
	}
	c, err := CutDiffFlame(bt, tt, minFraction)
	if err != nil {
		return FlameGraph{}, err
	}
	return c.Graph(), nil
}
