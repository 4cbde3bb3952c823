package hprof

import (
	"fmt"
	"slices"
	"strings"
	"unsafe"
)

// accumulationShare is how much of its parent's retained size a dominated object
// must hold for the accumulation point to move down to it (MAT uses a like ratio).
const accumulationShare = 0.8

// suspect is a suspect before the field names and texts are read.
type suspect struct {
	Suspect
	key     uint64   // the group: a class number, or 1<<32|ordinal for a class object
	members []uint32 // the top-level objects, largest first
	points  []uint32 // their accumulation points
	kept    []uint32 // the steps of the path kept in the report (pathEnds)
	index   []int    // their positions on the path
	holders []uint32 // the first MaxHoldingThreads holding thread objects
	// slot is the resolver's first slot of the path's vias: one per step from
	// the root when full, else one per kept step.
	slot uint32
	full bool
}

// groupKey is the suspect group of top-level object o and its name: its class,
// or the class object itself (a class's statics are a group of their own).
func (h *Heap) groupKey(o uint32) (uint64, string) {
	cn := h.class[o]
	if h.Classes[cn].kind == objClass {
		return 1<<32 | uint64(o), h.className(o)
	}
	return uint64(cn), h.Classes[cn].Name
}

// suspects groups the top-level objects of the dominator tree by class and keeps
// the groups that retain at least share of the reachable heap, largest first:
// the first top of them, count being how many there are. For each it finds the
// accumulation points, the ends of the shortest path to the largest one and
// the holding threads, and asks res for the fields of the whole path (of its
// kept steps when the budget has no room for all) and the names it shows.
func (h *Heap) suspects(share float64, top int, res *resolver) (out []*suspect, count int, err error) {
	total := h.TotalRetained()
	if total == 0 {
		return nil, 0, nil
	}
	level := h.Dominated(0, true)
	if err := h.mem.charge(4*int64(len(level)), "the leak suspects"); err != nil {
		return nil, 0, err
	}
	groups := map[uint64]*suspect{}
	var order []uint64
	rs := &h.rs
	for _, err := range []error{hold(rs, h.class), hold(rs, h.retained)} {
		if err != nil {
			return nil, 0, err
		}
	}
	for i, o := range level {
		if i&cancelCheckMask == 0 {
			if err := h.stopped(); err != nil {
				return nil, 0, err
			}
		}
		key, name := h.groupKey(o)
		g, ok := groups[key]
		if !ok {
			h.mem.chargeSmall(mapEntry+int64(unsafe.Sizeof(suspect{})), "the leak suspects")
			g = &suspect{Suspect: Suspect{Class: name}, key: key}
			groups[key] = g
			order = append(order, key)
		}
		g.Instances++
		g.Retained += h.Retained(o)
		g.members = append(g.members, o)
	}
	release(rs, h.class)
	release(rs, h.retained)
	if err := h.mem.flush(); err != nil {
		return nil, 0, err
	}
	for _, key := range order {
		g := groups[key]
		g.Share = float64(g.Retained) / float64(total)
		if g.Share >= share {
			out = append(out, g)
		}
	}
	slices.SortStableFunc(out, func(a, b *suspect) int { return cmpDesc(a.Retained, b.Retained, 0, 0) })
	count = len(out)
	out = out[:min(len(out), top)]
	for _, g := range out {
		if err := h.mem.charge(4*int64(len(g.members)), "the accumulation points"); err != nil {
			return nil, 0, err
		}
		h.accumulate(g)
		point := g.points[0]
		g.kept, g.index, g.PathLength = h.pathEnds(point, PathEnds)
		if err := h.wantPath(g, res); err != nil {
			return nil, 0, err
		}
		for _, o := range g.kept {
			res.wantName(o)
		}
		if len(g.kept) > 0 {
			h.wantRootNames(g.kept[0], res)
		}
		res.wantName(point)
		g.holders, g.ThreadCount = h.holdingThreads(g)
		for _, t := range g.holders {
			res.wantName(t)
		}
	}
	return out, count, nil
}

// wantPath asks res for the fields of g's path: of every step when the budget
// has room (for the index), else of the kept steps only.
func (h *Heap) wantPath(g *suspect, res *resolver) error {
	n := uint32(len(h.ids))
	steps := g.PathLength
	if steps == 0 {
		return nil
	}
	if first, err := res.slots(steps); err == nil {
		if err := h.mem.charge(fieldWantSize*int64(steps-1), "the fields of the paths"); err == nil {
			g.slot, g.full = first, true
			res.wants = slices.Grow(res.wants, steps-1)
			p := uint32(steps - 1)
			for x := g.kept[len(g.kept)-1]; h.bfs[x] != n; x = h.bfs[x] {
				res.wantField(h.bfs[x], x, first+p)
				p--
			}
			return nil
		}
		// The slots stay charged but unused: the kept steps take their own.
	}
	first, err := res.slots(len(g.kept))
	if err != nil {
		return err
	}
	if err := h.mem.charge(fieldWantSize*int64(len(g.kept)), "the fields of the paths"); err != nil {
		return err
	}
	g.slot = first
	for i, x := range g.kept {
		if g.index[i] > 0 {
			res.wantField(h.bfs[x], x, first+uint32(i))
		}
	}
	return nil
}

// via is the resolved via of the kept step i of g.
func (g *suspect) via(i int, res *resolver) uint32 {
	if g.full {
		return res.vias[g.slot+uint32(g.index[i])]
	}
	return res.vias[g.slot+uint32(i)]
}

// wantRootNames asks for the names of the threads that describe the GC root o.
func (h *Heap) wantRootNames(o uint32, res *resolver) {
	asked := 0
	for _, r := range h.Roots {
		if r.Ordinal != o || asked > 2*maxRootLabels {
			continue
		}
		switch r.Kind {
		case RootThreadObject:
			res.wantName(o)
			asked++
		case RootJavaFrame, RootJNILocal, RootNativeStack, RootThreadBlock:
			if t, ok := h.threadObjs[r.Thread]; ok {
				res.wantName(t)
				asked++
			}
		}
	}
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

// rootLabel describes the GC root o ("thread main", "Java local of thread
// main"), at most maxRootLabels kinds of it.
func (h *Heap) rootLabel(o uint32, res *resolver) string {
	var kinds []string
	more := 0
	for _, r := range h.Roots {
		if r.Ordinal != o {
			continue
		}
		label := r.Kind.String()
		switch r.Kind {
		case RootThreadObject:
			if name := res.threadName(o); name != "" {
				label = "thread " + clip(name)
			}
		case RootJavaFrame, RootJNILocal, RootNativeStack, RootThreadBlock:
			if t, ok := h.threadObjs[r.Thread]; ok {
				if name := res.threadName(t); name != "" {
					label += " of thread " + clip(name)
				}
			}
		}
		if slices.Contains(kinds, label) {
			continue
		}
		if len(kinds) == maxRootLabels {
			more++
			continue
		}
		kinds = append(kinds, label)
	}
	out := strings.Join(kinds, ", ")
	if more > 0 {
		out += fmt.Sprintf(" and %d more", more)
	}
	return out
}

// holdingThreads finds the threads that hold g's members: thread objects among
// them, or threads whose stacks hold them. It keeps the first
// MaxHoldingThreads and counts them all.
func (h *Heap) holdingThreads(g *suspect) (kept []uint32, count int) {
	n := uint32(len(h.ids))
	seen := map[uint32]bool{}
	add := func(t uint32) {
		if seen[t] {
			return
		}
		h.mem.chargeSmall(mapEntry, "the holding threads")
		seen[t] = true
		count++
		if len(kept) < MaxHoldingThreads {
			kept = append(kept, t)
		}
	}
	for _, m := range g.members {
		if _, ok := h.thread(m); ok {
			add(m)
		}
	}
	for _, r := range h.Roots {
		switch r.Kind {
		case RootJavaFrame, RootJNILocal, RootNativeStack, RootThreadBlock:
		default:
			continue
		}
		if h.idom[r.Ordinal] != n {
			continue // not a top-level object
		}
		if key, _ := h.groupKey(r.Ordinal); key != g.key {
			continue
		}
		if t, ok := h.threadObjs[r.Thread]; ok {
			add(t)
		}
	}
	return kept, count
}

func (h *Heap) finishSuspects(in []*suspect, res *resolver) []Suspect {
	out := []Suspect{}
	for _, g := range in {
		s := g.Suspect
		s.Accumulation = h.named(g.points[0], res)
		for _, t := range g.holders {
			if name := res.threadName(t); name != "" {
				s.Threads = append(s.Threads, clip(name))
			}
		}
		for i, o := range g.kept {
			step := Step{Object: h.named(o, res), Index: g.index[i]}
			if g.index[i] == 0 {
				step.Root = h.rootLabel(o, res)
			} else {
				step.Field = res.viaName(g.via(i, res))
			}
			s.Path = append(s.Path, step)
		}
		s.HolderShare = float64(s.HolderRetained) / float64(h.TotalRetained())
		s.Chain = h.chain(g.points[0], res)
		s.Element, s.ElementCount, s.Payload = h.elements(g.points[0])
		s.Sentence = sentence(s)
		out = append(out, s)
	}
	return out
}
