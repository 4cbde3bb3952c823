package hprof

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortOrdinalsByRuns checks the order of identifiers on the shapes dumps
// have: the class objects first, then spaces each in address order (whose
// ranges overlap when one is dumped before a lower one), a few out of order
// among them; and on shuffled identifiers, which take the full sort.
func TestSortOrdinalsByRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 1))
	ascending := func(n int, from uint64) []uint64 {
		out := make([]uint64, n)
		for i := range out {
			from += 8 * uint64(1+rng.IntN(4))
			out[i] = from
		}
		return out
	}
	shapes := map[string][]uint64{}
	classes := ascending(600, 0x7400_0000)
	rng.Shuffle(len(classes), func(i, j int) { classes[i], classes[j] = classes[j], classes[i] })
	young, old := ascending(70_000, 0x7490_0000), ascending(200_000, 0x7400_0000)
	shapes["classes, then two overlapping spaces"] = slices.Concat(classes, young, old)
	shapes["one space"] = ascending(100_000, 0x1000)
	mixed := slices.Concat(ascending(50_000, 0x10_0000), ascending(50_000, 0x8_0000))
	for i := 0; i < 3000; i++ { // strays among the runs
		j := rng.IntN(len(mixed))
		mixed[j] = 0x4_0000_0000 + uint64(i)*8
	}
	shapes["two runs with strays"] = mixed
	shuffled := ascending(50_000, 0x1000)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	shapes["shuffled"] = shuffled
	for name, ids := range shapes {
		h := &Heap{ids: ids}
		ord := make([]uint32, len(ids))
		if err := h.sortOrdinals(ord); err != nil {
			t.Fatal(err)
		}
		want := make([]uint32, len(ids))
		for i := range want {
			want[i] = uint32(i)
		}
		slices.SortStableFunc(want, func(a, b uint32) int { return cmpUint64(ids[a], ids[b]) })
		for i := range want {
			if ids[ord[i]] != ids[want[i]] {
				t.Fatalf("%s: position %d holds ordinal %d (id %x), want %d (id %x)", name, i, ord[i], ids[ord[i]], want[i], ids[want[i]])
			}
		}
		seen := make([]bool, len(ids))
		for _, o := range ord {
			if seen[o] {
				t.Fatalf("%s: ordinal %d twice", name, o)
			}
			seen[o] = true
		}
	}
}
