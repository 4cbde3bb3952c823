package jvm

import (
	"cmp"
	"slices"
)

// ThreadGroupChange is a thread group whose size changed between two dumps.
type ThreadGroupChange struct {
	ThreadGroup
	// BaseCount is the group's size in the base dump (0 for a new group); Count is
	// its size in the target (0 for a group that is gone).
	BaseCount int `json:"base_count"`
	// Delta is Count − BaseCount.
	Delta int `json:"delta"`
}

// NameChange is how many threads of one name pattern each dump has.
type NameChange struct {
	Pattern string `json:"pattern"`
	Base    int    `json:"base"`
	Target  int    `json:"target"`
	Delta   int    `json:"delta"`
}

// ThreadDiff compares two thread dumps of one JVM: which groups are new, which
// grew, which shrank or are gone, and which thread names multiplied.
type ThreadDiff struct {
	// Warnings say why the two dumps may not be comparable (see
	// OriginWarnings), to be shown first; absent when none.
	Warnings    []string `json:"warnings,omitempty"`
	BaseTotal   int      `json:"base_total"`
	TargetTotal int      `json:"target_total"`
	// New are groups the base does not have, largest first.
	New []ThreadGroupChange `json:"new"`
	// Grown are groups with more threads than in the base, most growth first.
	Grown []ThreadGroupChange `json:"grown"`
	// Shrunk are groups with fewer threads, gone ones included, most loss first.
	Shrunk []ThreadGroupChange `json:"shrunk"`
	// Names are the name patterns whose count changed, most growth first: a pool
	// whose threads each sit in a different place shows here even when no single
	// group grows much.
	Names []NameChange `json:"names"`
}

// DiffThreads compares the groups of a base dump with those of a target dump.
func DiffThreads(base, target *ThreadGroups) *ThreadDiff {
	d := &ThreadDiff{Warnings: OriginWarnings(base.Origin, target.Origin), BaseTotal: base.Total, TargetTotal: target.Total,
		New: []ThreadGroupChange{}, Grown: []ThreadGroupChange{}, Shrunk: []ThreadGroupChange{}, Names: []NameChange{}}
	baseGroups := make(map[string]*ThreadGroup, len(base.Groups))
	for i := range base.Groups {
		baseGroups[base.Groups[i].Key] = &base.Groups[i]
	}
	seen := make(map[string]bool, len(target.Groups))
	for _, g := range target.Groups {
		seen[g.Key] = true
		before := 0
		if b, ok := baseGroups[g.Key]; ok {
			before = b.Count
		}
		c := ThreadGroupChange{ThreadGroup: g, BaseCount: before, Delta: g.Count - before}
		switch {
		case before == 0:
			d.New = append(d.New, c)
		case c.Delta > 0:
			d.Grown = append(d.Grown, c)
		case c.Delta < 0:
			d.Shrunk = append(d.Shrunk, c)
		}
	}
	for _, g := range base.Groups {
		if !seen[g.Key] {
			gone := g
			gone.Count = 0
			d.Shrunk = append(d.Shrunk, ThreadGroupChange{ThreadGroup: gone, BaseCount: g.Count, Delta: -g.Count})
		}
	}
	byGrowth := func(a, b ThreadGroupChange) int {
		if c := cmp.Compare(b.Delta, a.Delta); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	}
	slices.SortStableFunc(d.New, byGrowth)
	slices.SortStableFunc(d.Grown, byGrowth)
	slices.SortStableFunc(d.Shrunk, func(a, b ThreadGroupChange) int { return byGrowth(b, a) })

	counts := map[string]*NameChange{}
	for _, n := range base.Names {
		counts[n.Pattern] = &NameChange{Pattern: n.Pattern, Base: n.Count}
	}
	for _, n := range target.Names {
		c, ok := counts[n.Pattern]
		if !ok {
			c = &NameChange{Pattern: n.Pattern}
			counts[n.Pattern] = c
		}
		c.Target = n.Count
	}
	for _, c := range counts {
		if c.Delta = c.Target - c.Base; c.Delta != 0 {
			d.Names = append(d.Names, *c)
		}
	}
	slices.SortFunc(d.Names, func(a, b NameChange) int {
		if c := cmp.Compare(b.Delta, a.Delta); c != 0 {
			return c
		}
		return cmp.Compare(a.Pattern, b.Pattern)
	})
	return d
}
