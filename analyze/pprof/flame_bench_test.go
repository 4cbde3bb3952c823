package pprof

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze"
)

// deepProfile encodes (uncompressed) a heap profile shaped like bench/genprofile
// with 4^depth distinct stacks: 4-ary recursion depth calls deep under three
// runtime frames; seed shifts the values, so two seeds make a base and a target.
// It writes the protobuf directly: a profile of a million stacks is 40 MB.
func deepProfile(depth int, seed int64) []byte {
	names := []string{"", "alloc_objects", "count", "alloc_space", "bytes", "inuse_objects", "inuse_space",
		"runtime.mallocgc", "runtime.makeslice", "main.step", "main.a0", "main.a1", "main.a2", "main.a3", "main.main", "runtime.main", "runtime.goexit"}
	const firstFunc = 7
	var out []byte
	msg := func(field int, m []byte) {
		out = binary.AppendUvarint(out, uint64(field)<<3|2)
		out = binary.AppendUvarint(out, uint64(len(m)))
		out = append(out, m...)
	}
	vt := func(typ, unit uint64) []byte { return []byte{1 << 3, byte(typ), 2 << 3, byte(unit)} }
	for i := range 4 {
		msg(1, vt(uint64(1+2*i), uint64(2+2*i%4)))
	}
	id := func(name int) uint64 { return uint64(name - firstFunc + 1) } // function and location ids
	var ids, vals, sample []byte
	for path := range 1 << (2 * depth) {
		ids = ids[:0]
		for _, n := range []int{7, 8, 9} {
			ids = binary.AppendUvarint(ids, id(n))
		}
		for d, x := 0, path; d < depth; d, x = d+1, x/4 {
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

// fiftyMB is a pair of deepProfile(10) profiles, 40 MB each (made anew for
// each caller: kept in a package variable, they would swell the heap that the
// series tests profile).
func fiftyMB() ([]byte, []byte) { return deepProfile(10, 0), deepProfile(10, 1) }

// TestDiffFlameOfTwo50MBProfiles measures the diff flame graph of two profiles
// of a million stacks (40 MB each, issue 21's B2): it is built within a budget of
// 1 GiB, and the time and the bytes allocated are logged (no timing is asserted).
func TestDiffFlameOfTwo50MBProfiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two 45 MB profiles")
	}
	a, b := fiftyMB()
	base, err := parse(a)
	if err != nil {
		t.Fatal(err)
	}
	target, err := parse(b)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	before := allocated()
	cpu0, _ := processCPUTime()
	start := time.Now()
	fg, err := DiffFlameWithin(base, target, 3, DefaultFlameFraction, analyze.NewBudget(1<<30))
	took := time.Since(start)
	cpu1, _ := processCPUTime()
	grew := allocated() - before
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("diff flame of two %d-byte profiles (%d samples each): %v wall, %v CPU, %d bytes allocated, %d boxes", len(a), target.Samples(), took, cpu1-cpu0, grew, fg.Nodes)
	if fg.Total != target.Top(3).Total || fg.BaseTotal != base.Top(3).Total {
		t.Errorf("totals %d/%d, want %d/%d", fg.Total, fg.BaseTotal, target.Top(3).Total, base.Top(3).Total)
	}
	if grew > 1<<30 {
		t.Errorf("%d bytes allocated, more than 1 GiB", grew)
	}
	// A budget too small for the tree refuses it.
	if _, err := DiffFlameWithin(base, target, 3, DefaultFlameFraction, analyze.NewBudget(8<<20)); !isErr(err, analyze.ErrBusy) && !isErr(err, analyze.ErrTooLarge) {
		t.Errorf("within 8 MB: %v, want the budget's error", err)
	}
}

// BenchmarkDiffFlame50MB measures the diff flame graph of two 40 MB profiles.
func BenchmarkDiffFlame50MB(b *testing.B) {
	x, y := fiftyMB()
	base, err := Load(bytes.NewReader(x), 0)
	if err != nil {
		b.Fatal(err)
	}
	target, err := Load(bytes.NewReader(y), 0)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DiffFlame(base, target, 3, DefaultFlameFraction); err != nil {
			b.Fatal(err)
		}
	}
}
