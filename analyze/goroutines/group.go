package goroutines

import (
	"slices"
	"sort"

	"github.com/leakui/leakui/analyze"
)

// Group is a set of goroutines of one dump with the same stack (functions,
// files and lines, including where they were created), state, lock to a thread and
// labels: what panicparse calls a bucket in its aggressive mode, since argument
// values and offsets never split a group. How long they have waited does not split
// a group either: it becomes the range WaitMin–WaitMax.
type Group struct {
	// Count is the number of goroutines in the group.
	Count int
	// State is the goroutines' status ("chan receive", "running"); empty for
	// formats without one (debug=1, proto).
	State string
	// Locked reports that the goroutines are locked to their OS thread.
	Locked bool
	// WaitMin and WaitMax are the shortest and longest wait in whole minutes, as
	// the dump prints them; 0 means under a minute (or not known).
	WaitMin, WaitMax int
	// Labels are the group's pprof labels; nil when none.
	Labels map[string]string
	// Stack is the shared stack, innermost call first.
	Stack *Stack
	// IDs are the goroutine ids in ascending order; empty for debug=1 and proto,
	// which do not have them.
	IDs []int64
	// CreatorIDs are the distinct goroutines that created these ones ("created by
	// … in goroutine N"), ascending; empty when the dump does not say.
	CreatorIDs []int64
	// Panicking reports that the group holds the goroutine that panicked or threw.
	Panicking bool
	// Change is how the group changed since a base dump; nil outside a comparison
	// (see compareDumps).
	Change *Change

	first int // index of the group's first goroutine in the dump, for stable order
}

// Change tells how a group changed between a base dump and the target.
type Change struct {
	// Base is the group's count in the base dump.
	Base int
	// Delta is Count − Base.
	Delta int
	// New reports a group absent from the base; Gone one absent from the target
	// (then Count is 0 and the group shows the base's goroutines).
	New, Gone bool
}

// goroutineGroupKey is what makes two goroutines of one dump the same group. Stacks are
// interned, so the pointer compares frames and creator.
type goroutineGroupKey struct {
	stack   *Stack
	state   string
	locked  bool
	labels  string
	creator int64 // the creating goroutine when split by creator, else -1
}

// Groups groups the goroutines of a dump (see Group), largest
// group first; ties keep the order of the dump. The group of the goroutine that
// panicked or threw comes before all others. It runs in time linear in the number
// of goroutines (and in the ids it sorts).
func Groups(d *Dump) []Group {
	return groupDump(d, false)
}

// GroupsByCreator groups like Groups, but also splits a group by the goroutine that
// created its members ("created by … in goroutine N"), as panicparse's buckets do:
// goroutines started by the same `go` statement from different goroutines land in
// different groups. Dumps that do not name creators (debug=1, proto) group as with
// Groups.
func GroupsByCreator(d *Dump) []Group {
	return groupDump(d, true)
}

// groupDump is Groups, split by creator when byCreator is set.
func groupDump(d *Dump, byCreator bool) []Group {
	index := make(map[goroutineGroupKey]int)
	var groups []Group
	crashed := int64(-1)
	if d.Crash != nil {
		crashed = d.Crash.Goroutine
	}
	for i := range d.Goroutines {
		g := &d.Goroutines[i]
		k := goroutineGroupKey{stack: g.Stack, state: g.State, locked: g.Locked, labels: g.labelsKey, creator: -1}
		if byCreator {
			k.creator = g.CreatorID
		}
		gi, ok := index[k]
		if !ok {
			gi = len(groups)
			index[k] = gi
			groups = append(groups, Group{
				State: g.State, Locked: g.Locked, Labels: g.Labels, Stack: g.Stack,
				WaitMin: g.WaitMinutes, WaitMax: g.WaitMinutes, first: i,
			})
		}
		gr := &groups[gi]
		gr.Count += g.Count
		gr.WaitMin = min(gr.WaitMin, g.WaitMinutes)
		gr.WaitMax = max(gr.WaitMax, g.WaitMinutes)
		if g.ID >= 0 {
			gr.IDs = append(gr.IDs, g.ID)
			if g.ID == crashed {
				gr.Panicking = true
			}
		}
		if g.CreatorID >= 0 && (len(gr.CreatorIDs) == 0 || gr.CreatorIDs[len(gr.CreatorIDs)-1] != g.CreatorID) {
			gr.CreatorIDs = append(gr.CreatorIDs, g.CreatorID)
		}
	}
	for i := range groups {
		slices.Sort(groups[i].IDs)
		slices.Sort(groups[i].CreatorIDs)
		groups[i].CreatorIDs = slices.Compact(groups[i].CreatorIDs)
	}
	sortGoroutineGroups(groups)
	return groups
}

// Wait describes the group's wait times for people: "" when all waited under a
// minute (or the dump does not say), "5 minutes", "1–5 minutes", or "up to 5
// minutes" when some waited under a minute.
func (g *Group) Wait() string {
	switch {
	case g.WaitMax == 0:
		return ""
	case g.WaitMin == g.WaitMax:
		return analyze.Plural(int64(g.WaitMax), "minute")
	case g.WaitMin == 0:
		return "up to " + analyze.Plural(int64(g.WaitMax), "minute")
	}
	return analyze.FormatCount(int64(g.WaitMin)) + "–" + analyze.Plural(int64(g.WaitMax), "minute")
}

// sortGoroutineGroups orders groups: the panicking one first, then by count, larger
// first, then by first appearance.
func sortGoroutineGroups(groups []Group) {
	sort.SliceStable(groups, func(i, j int) bool {
		a, b := &groups[i], &groups[j]
		if a.Panicking != b.Panicking {
			return a.Panicking
		}
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.first < b.first
	})
}
