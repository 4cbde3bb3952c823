package hprof

import (
	"math/rand/v2"
	"testing"
	"time"
)

// naiveDominators computes each object's immediate dominator by removal: d
// dominates v when v is reachable from the GC roots but not once d is removed; the
// immediate dominator is the dominator that dominates the fewest objects. It
// returns len(ids) for the objects the roots dominate together and noObject for
// the unreachable.
func naiveDominators(h *Heap) []uint32 {
	n := uint32(len(h.ids))
	roots := h.rootTargets()
	reach := func(removed uint32, seen []bool) {
		clear(seen)
		var queue []uint32
		for _, r := range roots {
			if r != removed && !seen[r] {
				seen[r] = true
				queue = append(queue, r)
			}
		}
		for i := 0; i < len(queue); i++ {
			for _, t := range h.out.row(queue[i]) {
				if t != removed && !seen[t] {
					seen[t] = true
					queue = append(queue, t)
				}
			}
		}
	}
	all := make([]bool, n)
	reach(noObject, all)
	best := make([]uint32, n)
	bestSize := make([]int, n)
	for v := range best {
		best[v], bestSize[v] = noObject, int(n)+1
		if all[v] {
			best[v] = n
		}
	}
	without := make([]bool, n)
	var dominated []uint32
	for d := uint32(0); d < n; d++ {
		if !all[d] || len(h.out.row(d)) == 0 {
			continue
		}
		reach(d, without)
		dominated = dominated[:0]
		for v := uint32(0); v < n; v++ {
			if v != d && all[v] && !without[v] {
				dominated = append(dominated, v)
			}
		}
		for _, v := range dominated {
			if len(dominated) < bestSize[v] {
				best[v], bestSize[v] = d, len(dominated)
			}
		}
	}
	return best
}

// checkDominators compares the semi-NCA dominators with the naive ones for every
// object.
func checkDominators(t *testing.T, h *Heap) []uint32 {
	t.Helper()
	if err := h.Analyze(nil); err != nil {
		t.Fatal(err)
	}
	want := naiveDominators(h)
	bad := 0
	for o := range want {
		if got := h.idom[o]; got != want[o] {
			if bad++; bad <= 10 {
				t.Errorf("object %d (%s): immediate dominator %d, removal says %d", o, h.ClassOf(uint32(o)).Name, got, want[o])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d immediate dominators differ", bad, len(want))
	}
	return want
}

// TestDominatorsOfARealDumpByRemoval checks every object's immediate dominator in
// the dump of a small LeakShape heap against the naive computation. The dump is
// gzip-compressed (jcmd GC.heap_dump -gz=1), which Open inflates. Then it
// round-trips the dominator tree through the index (WriteIndex, OpenIndex) and
// checks every node's children and path in it against the removal computation.
func TestDominatorsOfARealDumpByRemoval(t *testing.T) {
	jh := runJava(t, "LeakShape", true, []string{"-XX:+UseSerialGC", "-Xmx64m"}, "3", "4096", "30", "10")
	h, err := Open(jh.Dump, OpenOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	start := time.Now()
	want := checkDominators(t, h)
	t.Logf("%d objects, %d references: checked in %v", h.Objects(), len(h.out.targets), time.Since(start))
	data := writeIndex(t, h)
	checkIndex(t, h, mustOpenIndex(t, data), want)
}

// TestDominatorsOfRandomGraphs checks the algorithm on random graphs with cycles,
// shared objects and unreachable parts, against the naive computation.
func TestDominatorsOfRandomGraphs(t *testing.T) {
	checkRandomGraphs(t, rand.New(rand.NewPCG(20, 1)))
}

// TestDominatorsInSmallPartitions has the semidominators read the referrers
// in partitions of a few depth-first numbers, each read and sorted on a
// second goroutine while the one after it is worked through: the dominators
// of random graphs and of a real dump are still the removal ones.
func TestDominatorsInSmallPartitions(t *testing.T) {
	was := partitionSpan
	t.Cleanup(func() { partitionSpan = was })
	partitionSpan = 3
	checkRandomGraphs(t, rand.New(rand.NewPCG(21, 1)))
	partitionSpan = 97
	jh := runJava(t, "LeakShape", true, []string{"-XX:+UseSerialGC", "-Xmx64m"}, "3", "4096", "30", "10")
	h, err := Open(jh.Dump, OpenOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	checkDominators(t, h)
	t.Logf("%d objects in %d partitions", h.Objects(), h.Objects()/partitionSpan+1)
}

// checkRandomGraphs checks the algorithm on 300 random graphs.
func checkRandomGraphs(t *testing.T, rng *rand.Rand) {
	t.Helper()
	for range 300 {
		n := 2 + rng.IntN(60)
		var adj [][]uint32
		for range n {
			var row []uint32
			for range rng.IntN(4) {
				row = append(row, uint32(rng.IntN(n)))
			}
			adj = append(adj, row)
		}
		h := &Heap{ids: make([]uint64, n), class: make([]uint32, n), size: make([]uint32, n), Classes: []*Class{{Name: "Node"}}}
		for o := range n {
			h.size[o] = uint32(8 + rng.IntN(100))
		}
		offsets := []uint32{0}
		var targets []uint32
		for _, row := range adj {
			targets = append(targets, row...)
			offsets = append(offsets, uint32(len(targets)))
		}
		h.out = csr{offsets: offsets, targets: targets}
		for range 1 + rng.IntN(3) {
			h.Roots = append(h.Roots, Root{Ordinal: uint32(rng.IntN(n))})
		}
		checkDominators(t, h)
		if t.Failed() {
			t.Fatalf("graph %v, roots %v", adj, h.Roots)
		}
	}
}
