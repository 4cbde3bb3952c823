package hostile

import "encoding/binary"

// ManyStacks encodes (uncompressed) a heap profile shaped like bench/genprofile
// with 4^depth distinct stacks: 4-ary recursion depth calls deep under three
// runtime frames; seed shifts the values, so two seeds make a base and a target.
// It writes the protobuf directly: a profile of a million stacks is 40 MB. Its
// samples are in stack order.
func ManyStacks(depth int, seed int64) []byte {
	return ManyStacksShaped(StackShape{Depth: depth, Seed: seed})
}

// StackShape is the shape of a ManyStacksShaped profile.
type StackShape struct {
	// Depth is the recursion's depth: 4^Depth distinct stacks.
	Depth int
	// Seed shifts the values: two seeds make a base and a target.
	Seed int64
	// Hops adds frames of main.hop to each level of the recursion (each level
	// is main.aN and main.step, then Hops main.hop): Depth 10 and Hops 1 make
	// a profile of a million stacks of 36 frames, 51 MB.
	Hops int
	// Scattered writes the samples in a scrambled order, as the Go runtime
	// writes its heap profile (by the hash of the stack), not in stack order.
	Scattered bool
}

// ManyStacksShaped encodes (uncompressed) a heap profile of the shape.
func ManyStacksShaped(shape StackShape) []byte {
	depth, seed := shape.Depth, shape.Seed
	names := []string{"", "alloc_objects", "count", "alloc_space", "bytes", "inuse_objects", "inuse_space",
		"runtime.mallocgc", "runtime.makeslice", "main.step", "main.a0", "main.a1", "main.a2", "main.a3", "main.main", "runtime.main", "runtime.goexit"}
	const firstFunc, hop = 7, 17
	if shape.Hops > 0 {
		names = append(names, "main.hop")
	}
	var out []byte
	msg := func(field int, m []byte) {
		out = binary.AppendUvarint(out, uint64(field)<<3|2)
		out = binary.AppendUvarint(out, uint64(len(m)))
		out = append(out, m...)
	}
	vt := func(typ, unit uint64) []byte { return []byte{1 << 3, byte(typ), 2 << 3, byte(unit)} }
	for _, st := range [][2]uint64{{1, 2}, {3, 4}, {5, 2}, {6, 4}} { // alloc_objects/count … inuse_space/bytes
		msg(1, vt(st[0], st[1]))
	}
	id := func(name int) uint64 { return uint64(name - firstFunc + 1) } // function and location ids
	var ids, vals, sample []byte
	n := 1 << (2 * depth)
	for i := range n {
		path := i
		if shape.Scattered {
			path = int(uint64(i) * 0x9e3779b97f4a7c15 & uint64(n-1)) // an odd multiplier: a permutation
		}
		ids = ids[:0]
		for _, n := range []int{7, 8, 9} {
			ids = binary.AppendUvarint(ids, id(n))
		}
		for d, x := 0, path; d < depth; d, x = d+1, x/4 {
			for range shape.Hops {
				ids = binary.AppendUvarint(ids, id(hop))
			}
			ids = binary.AppendUvarint(ids, id(10+x%4))
			ids = binary.AppendUvarint(ids, id(9))
		}
		for _, n := range []int{14, 15, 16} {
			ids = binary.AppendUvarint(ids, id(n))
		}
		v := uint64((int64(path)*7+seed)%4096 + 1)
		vals = vals[:0]
		for _, x := range []uint64{1, v, 1, v} {
			vals = binary.AppendUvarint(vals, x)
		}
		sample = sample[:0]
		sample = append(sample, 1<<3|2)
		sample = binary.AppendUvarint(sample, uint64(len(ids)))
		sample = append(sample, ids...)
		sample = append(sample, 2<<3|2)
		sample = binary.AppendUvarint(sample, uint64(len(vals)))
		sample = append(sample, vals...)
		msg(2, sample)
	}
	for n := firstFunc; n < len(names); n++ {
		msg(5, []byte{1 << 3, byte(id(n)), 2 << 3, byte(n)})                  // Function{id, name}
		msg(4, []byte{1 << 3, byte(id(n)), 4<<3 | 2, 2, 1 << 3, byte(id(n))}) // Location{id, Line{function_id}}
	}
	for _, s := range names {
		msg(6, []byte(s))
	}
	return out
}
