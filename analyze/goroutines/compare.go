package goroutines

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// compareDumps groups both dumps and matches the groups of target with those
// of base, so that what is new or grew shows first: groups that grew (new ones
// included) by growth, then unchanged groups by size, then groups that shrank, then
// groups that are gone (Count 0, showing the base's goroutines). The panicking
// group, if any, still comes first. Every group carries its Change.
//
// The dumps may be of different formats (a debug=2 dump against a debug=1 profile
// or a proto of the same program). Groups are matched on what both formats show:
// the stack without the runtime's own frames (runtime.gopark, runtime.main, …,
// which the text formats hide and protos keep), plus the state and creator when
// both list goroutines one by one, plus labels when both have labels. Groups of one
// dump that look the same under that rule are merged.
func compareDumps(base, target *Dump) []Group {
	rule := goroutineCompareRule{
		perGoroutine: base.PerGoroutine() && target.PerGoroutine(),
		labels:       hasGoroutineLabels(base) && hasGoroutineLabels(target),
	}
	targetGroups, targetIndex := mergeGoroutineGroupsByKey(Groups(target), rule)
	baseGroups, baseIndex := mergeGoroutineGroupsByKey(Groups(base), rule)
	out := make([]Group, 0, len(targetGroups)+len(baseGroups))
	for key, ti := range targetIndex {
		g := targetGroups[ti]
		ch := &Change{New: true}
		if bi, ok := baseIndex[key]; ok {
			ch = &Change{Base: baseGroups[bi].Count}
		}
		ch.Delta = g.Count - ch.Base
		g.Change = ch
		out = append(out, g)
	}
	for key, bi := range baseIndex {
		if _, ok := targetIndex[key]; ok {
			continue
		}
		g := baseGroups[bi]
		g.Change = &Change{Base: g.Count, Delta: -g.Count, Gone: true}
		g.Count = 0
		g.Panicking = false
		g.first += len(target.Goroutines)
		out = append(out, g)
	}
	sortGoroutineChanges(out)
	return out
}

// goroutineCompareRule says which attributes take part in matching groups across dumps.
type goroutineCompareRule struct {
	perGoroutine bool // states, locks and creators
	labels       bool
}

func hasGoroutineLabels(d *Dump) bool {
	for i := range d.Goroutines {
		if d.Goroutines[i].labelsKey != "" {
			return true
		}
	}
	return false
}

// mergeGoroutineGroupsByKey merges the groups that share a comparison key and indexes
// the result by key; the order of groups stays that of their first member.
func mergeGoroutineGroupsByKey(groups []Group, rule goroutineCompareRule) ([]Group, map[string]int) {
	index := make(map[string]int, len(groups))
	var out []Group
	for _, g := range groups {
		key := goroutineCompareKey(&g, rule)
		if i, ok := index[key]; ok {
			m := &out[i]
			m.Count += g.Count
			m.WaitMin = min(m.WaitMin, g.WaitMin)
			m.WaitMax = max(m.WaitMax, g.WaitMax)
			m.IDs = append(m.IDs, g.IDs...)
			slices.Sort(m.IDs)
			m.CreatorIDs = slices.Compact(slices.Sorted(slices.Values(append(m.CreatorIDs, g.CreatorIDs...))))
			m.Panicking = m.Panicking || g.Panicking
			continue
		}
		index[key] = len(out)
		g.IDs = slices.Clone(g.IDs)
		out = append(out, g)
	}
	return out, index
}

// goroutineCompareKey writes what identifies a group across dumps.
func goroutineCompareKey(g *Group, rule goroutineCompareRule) string {
	var b strings.Builder
	frames := comparableGoroutineFrames(g.Stack.Frames)
	for _, f := range frames {
		b.WriteString(f.Func)
		b.WriteByte(0)
		b.WriteString(f.File)
		b.WriteByte(0)
		b.WriteString(strconv.Itoa(f.Line))
		b.WriteByte(1)
	}
	if rule.perGoroutine {
		b.WriteByte(2)
		b.WriteString(g.State)
		if g.Locked {
			b.WriteString("\x00locked")
		}
		if cb := g.Stack.CreatedBy; cb != nil {
			b.WriteByte(3)
			b.WriteString(cb.Func)
			b.WriteByte(0)
			b.WriteString(cb.File)
			b.WriteByte(0)
			b.WriteString(strconv.Itoa(cb.Line))
		}
	}
	if rule.labels {
		b.WriteByte(4)
		if g.Labels != nil {
			b.WriteString(canonicalGoroutineLabels(g.Labels))
		}
	}
	return b.String()
}

// comparableGoroutineFrames drops the frames that some formats show and others hide: the
// runtime's unexported functions, as a traceback hides them. runtime.gopanic, which
// tracebacks print as "panic", is renamed. A stack of nothing but runtime frames
// stays whole.
func comparableGoroutineFrames(frames []Frame) []Frame {
	out := make([]Frame, 0, len(frames))
	for _, f := range frames {
		if f.Func == "runtime.gopanic" {
			f.Func = "panic"
		}
		if hiddenGoroutineRuntimeFrame(f.Func) {
			continue
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return frames
	}
	return out
}

// hiddenGoroutineRuntimeFrame reports a function a default traceback does not print: the
// runtime's unexported functions (runtime.gopark, runtime.main, runtime.goexit) and
// internal/runtime packages.
func hiddenGoroutineRuntimeFrame(name string) bool {
	if strings.HasPrefix(name, "internal/runtime/") {
		return true
	}
	const rt = "runtime."
	if !strings.HasPrefix(name, rt) || len(name) == len(rt) {
		return false
	}
	c := name[len(rt)]
	return !('A' <= c && c <= 'Z')
}

// sortGoroutineChanges orders a comparison: the panicking group, then groups that
// grew (by growth), unchanged ones (by size), shrunk ones (most shrunk first), gone
// ones (largest first).
func sortGoroutineChanges(groups []Group) {
	rank := func(g *Group) int {
		switch {
		case g.Panicking:
			return 0
		case g.Change.Delta > 0:
			return 1
		case g.Change.Delta == 0:
			return 2
		case !g.Change.Gone:
			return 3
		}
		return 4
	}
	sort.SliceStable(groups, func(i, j int) bool {
		a, b := &groups[i], &groups[j]
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra < rb
		}
		if a.Change.Delta != b.Change.Delta {
			if a.Change.Delta > 0 {
				return a.Change.Delta > b.Change.Delta
			}
			return a.Change.Delta < b.Change.Delta
		}
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		if a.Change.Base != b.Change.Base {
			return a.Change.Base > b.Change.Base
		}
		return a.first < b.first
	})
}
