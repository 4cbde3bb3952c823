package hprof

import (
	"unicode/utf8"
)

// What a Report keeps, whatever the dump: a dump controls how long its paths,
// lists, stacks and names are, and a report is stored and shown to everyone who
// opens its link, so each has a bound, with the true count beside what is kept.
const (
	// PathEnds is how many steps a Report keeps at each end of a path from a
	// GC root (Suspect.Path): the root and the steps below it, and the steps
	// down to the accumulation point; Suspect.PathLength counts them all, and
	// the index written after the report (WriteIndex) holds every step.
	PathEnds = 4
	// MaxName is the most bytes of a class, field, method or thread name a
	// report keeps (cut on a character boundary, ending with "…").
	MaxName = 200
	// MaxStack is the most frames of a thread's stack a report keeps
	// (Thread.StackDepth counts them all).
	MaxStack = 8
	// MaxHoldingThreads is the most holding threads a suspect names
	// (Suspect.ThreadCount counts them all).
	MaxHoldingThreads = 8
	// maxRootLabels is the most GC root kinds a path's root describes.
	maxRootLabels = 4
)

// clip cuts s to at most MaxName bytes on a character boundary, marking the cut
// with "…".
func clip(s string) string { return clipTo(s, MaxName) }

// clipTo cuts s to at most limit bytes on a character boundary, marking the cut
// with "…".
func clipTo(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	const ellipsis = "…"
	cut := limit - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}

// pathEnds walks up the shortest-path tree from o to its GC root and keeps at
// most ends steps at each end, in O(ends) memory whatever the path's length:
// kept are the ordinals, root first, and index their positions on the whole
// path (0 for the root); length counts every step, 0 when o is unreachable.
func (h *Heap) pathEnds(o uint32, ends int) (kept []uint32, index []int, length int) {
	if h.bfs[o] == noObject {
		return nil, nil, 0
	}
	n := uint32(len(h.ids))
	var near []uint32           // the first ends visited: the steps nearest o
	far := make([]uint32, ends) // a ring of the last ends visited: the steps nearest the root
	for x := o; x != n; x = h.bfs[x] {
		if len(near) < ends {
			near = append(near, x)
		}
		far[length%ends] = x
		length++
	}
	// far, oldest first, holds the visits length-ends … length-1; the root is the
	// last visit.
	headCount := min(ends, length-len(near))
	for i := headCount - 1; i >= 0; i-- {
		kept = append(kept, far[(length-headCount+i)%ends])
		index = append(index, headCount-1-i)
	}
	for i := len(near) - 1; i >= 0; i-- {
		kept = append(kept, near[i])
		index = append(index, length-1-i)
	}
	return kept, index, length
}
