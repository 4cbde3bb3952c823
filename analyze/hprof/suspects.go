package hprof

import (
	"fmt"
	"slices"
	"strings"

	"github.com/leakui/leakui/analyze"
)

// accumulationShare is how much of its parent's retained size a dominated object
// must hold for the accumulation point to move down to it (MAT uses a like ratio).
const accumulationShare = 0.8

// suspect is a suspect before the field names and texts are read.
type suspect struct {
	Suspect
	members []uint32 // the top-level objects, largest first
	points  []uint32 // their accumulation points
	path    []uint32
}

// suspects groups the top-level objects of the dominator tree by class and keeps
// the groups that retain at least share of the reachable heap, largest first.
func (h *Heap) suspects(share float64, res *resolver) []*suspect {
	total := h.TotalRetained()
	if total == 0 {
		return nil
	}
	// Top-level objects of one class form a group; a class object (a class's
	// statics) is a group of its own.
	groups := map[uint64]*suspect{}
	var order []uint64
	for _, o := range h.Dominated(0, true) {
		cn := h.class[o]
		key, name := uint64(cn), h.Classes[cn].Name
		if h.Classes[cn].kind == objClass {
			key, name = 1<<32|uint64(o), h.className(o)
		}
		g, ok := groups[key]
		if !ok {
			g = &suspect{Suspect: Suspect{Class: name}}
			groups[key] = g
			order = append(order, key)
		}
		g.Instances++
		g.Retained += h.Retained(o)
		g.members = append(g.members, o)
	}
	var out []*suspect
	for _, cn := range order {
		g := groups[cn]
		g.Share = float64(g.Retained) / float64(total)
		if g.Share >= share {
			out = append(out, g)
		}
	}
	slices.SortStableFunc(out, func(a, b *suspect) int { return cmpDesc(a.Retained, b.Retained, 0, 0) })
	for _, g := range out {
		h.accumulate(g)
		g.path = h.PathToRoot(g.points[0])
		for i := 1; i < len(g.path); i++ {
			res.wantField(g.path[i-1], g.path[i])
		}
		for _, o := range g.path {
			res.wantText(o)
		}
		res.wantText(g.points[0])
	}
	return out
}

// accumulate finds the accumulation point of every member of g and the class of
// most of them.
func (h *Heap) accumulate(g *suspect) {
	byClass := map[uint32]int64{}
	for _, m := range g.members {
		p := h.accumulationPoint(m)
		g.points = append(g.points, p)
		byClass[h.class[p]] += h.Retained(p)
	}
	best, bestSize := uint32(0), int64(-1)
	for cn, size := range byClass {
		if size > bestSize || size == bestSize && cn < best {
			best, bestSize = cn, size
		}
	}
	g.Holder = h.Classes[best].Name
	var first uint32 = noObject
	for _, p := range g.points {
		if h.class[p] == best {
			g.HolderInstances++
			g.HolderRetained += h.Retained(p)
			if first == noObject || h.Retained(p) > h.Retained(first) {
				first = p
			}
		}
	}
	// The largest accumulation point of the holder class first.
	for i, p := range g.points {
		if p == first {
			g.points[0], g.points[i] = g.points[i], g.points[0]
			break
		}
	}
}

// accumulationPoint goes down the dominator tree from o while the largest dominated
// object holds accumulationShare of its parent, and stops above a primitive array
// (the payload, not what holds it).
func (h *Heap) accumulationPoint(o uint32) uint32 {
	for {
		kids := h.domKids.row(o)
		if len(kids) == 0 {
			return o
		}
		c := kids[0]
		if float64(h.Retained(c)) < accumulationShare*float64(h.Retained(o)) {
			return o
		}
		if h.Classes[h.class[c]].kind == objPrimArray {
			return o
		}
		o = c
	}
}

// rootLabel describes the GC root o ("thread main", "Java local of thread main").
func (h *Heap) rootLabel(o uint32, names map[uint32]string) string {
	var kinds []string
	for _, r := range h.Roots {
		if r.Ordinal != o {
			continue
		}
		label := r.Kind.String()
		switch r.Kind {
		case RootThreadObject:
			if name := names[o]; name != "" {
				label = "thread " + name
			}
		case RootJavaFrame, RootJNILocal, RootNativeStack, RootThreadBlock:
			if t, ok := h.threadObjs[r.Thread]; ok && names[t] != "" {
				label += " of thread " + names[t]
			}
		}
		if !slices.Contains(kinds, label) {
			kinds = append(kinds, label)
		}
	}
	return strings.Join(kinds, ", ")
}

// holdingThreads names the threads that hold members: thread objects themselves, or
// objects on the stacks of threads.
func (h *Heap) holdingThreads(members []uint32, names map[uint32]string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(name string) {
		if name != "" && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	set := map[uint32]bool{}
	for _, m := range members {
		set[m] = true
		if name, ok := names[m]; ok {
			add(name)
		}
	}
	for _, r := range h.Roots {
		if !set[r.Ordinal] {
			continue
		}
		switch r.Kind {
		case RootJavaFrame, RootJNILocal, RootNativeStack, RootThreadBlock:
			if t, ok := h.threadObjs[r.Thread]; ok {
				add(names[t])
			}
		}
	}
	return out
}

func (h *Heap) finishSuspects(in []*suspect, res *resolver, names map[uint32]string) []Suspect {
	out := []Suspect{}
	for _, g := range in {
		s := g.Suspect
		s.Accumulation = h.object(g.points[0])
		if t, ok := res.textOf(g.points[0]); ok {
			s.Accumulation.Text = t
		}
		s.Threads = h.holdingThreads(g.members, names)
		for i, o := range g.path {
			step := Step{Object: h.object(o)}
			if t, ok := res.textOf(o); ok {
				step.Object.Text = t
			}
			if name, ok := names[o]; ok {
				step.Object.Text = name
			}
			if i == 0 {
				step.Root = h.rootLabel(o, names)
			} else {
				step.Field = res.field(g.path[i-1], o)
			}
			s.Path = append(s.Path, step)
		}
		s.Sentence = sentence(s)
		out = append(out, s)
	}
	return out
}

// sentence says a suspect in one line: "16 instances of `a.Consumer` retain 16.0 MB
// (75%), accumulated in threads `leak-0`, `leak-1` and 14 more".
func sentence(s Suspect) string {
	what := fmt.Sprintf("One instance of `%s` retains", s.Holder)
	if s.HolderInstances != 1 {
		what = fmt.Sprintf("%s instances of `%s` retain", analyze.FormatCount(s.HolderInstances), s.Holder)
	}
	where := ""
	switch {
	case len(s.Threads) == 1:
		where = fmt.Sprintf(", accumulated in thread `%s`", s.Threads[0])
	case len(s.Threads) > 1:
		shown := s.Threads[:min(len(s.Threads), 3)]
		where = ", accumulated in threads `" + strings.Join(shown, "`, `") + "`"
		if more := len(s.Threads) - len(shown); more > 0 {
			where += fmt.Sprintf(" and %d more", more)
		}
	case strings.HasPrefix(s.Class, "class "):
		where = fmt.Sprintf(", held by the statics of `%s`", strings.TrimPrefix(s.Class, "class "))
	case s.Class != s.Holder && s.Instances == 1:
		where = fmt.Sprintf(", held by one `%s`", s.Class)
	case s.Class != s.Holder:
		where = fmt.Sprintf(", held by %s instances of `%s`", analyze.FormatCount(s.Instances), s.Class)
	}
	return fmt.Sprintf("%s %s (%.0f%%)%s.", what, analyze.FormatBytes(s.Retained), 100*s.Share, where)
}
