//go:build linux

package hprof

import (
	"os"
	"testing"
	"unsafe"
)

// TestHeldArrayReachesItsFile checks that an array made held, written at
// random in memory and released, reads back the same from its file, and that
// a pinned array keeps its pages (and its charge) through a release until the
// last unpin.
func TestHeldArrayReachesItsFile(t *testing.T) {
	m := &meter{}
	rs := &regions{dir: t.TempDir(), spill: true, mem: m}
	defer rs.freeAll()
	const n = 3 << 20 // 12 MiB of uint32: several windows
	a, err := makeArray[uint32](rs, n, held, "a test array")
	if err != nil {
		t.Fatal(err)
	}
	r := rs.regionOf(unsafe.Pointer(unsafe.SliceData(a)))
	if !r.inMemory {
		t.Fatal("a held array was not kept in memory while held")
	}
	for i := range a {
		a[(i*7919)%n] = uint32(i) ^ 0x5a5a5a5a
	}
	release(rs, a)
	if r.inMemory || r.held {
		t.Fatal("a released array was not moved to its file")
	}
	if r.charged > windowBytes {
		t.Fatalf("a released array is still charged %d bytes", r.charged)
	}
	buf := make([]byte, 4)
	for _, i := range []int{0, 1, n / 3, n - 1} {
		if _, err := r.f.ReadAt(buf, int64(4*((i*7919)%n))); err != nil {
			t.Fatal(err)
		}
		got := uint32(buf[0]) | uint32(buf[1])<<8 | uint32(buf[2])<<16 | uint32(buf[3])<<24
		if want := uint32(i) ^ 0x5a5a5a5a; got != want || a[(i*7919)%n] != want {
			t.Fatalf("value %d: the file holds %#x, the mapping %#x, want %#x", i, got, a[(i*7919)%n], want)
		}
	}

	// Pinned: a release on the owner's side waits for the last unpin.
	if err := pin(rs, a); err != nil {
		t.Fatal(err)
	}
	if err := hold(rs, a); err != nil {
		t.Fatal(err)
	}
	release(rs, a)
	if !r.held || r.charged < int64(4*n) {
		t.Fatalf("a pinned array was released (held %v, charged %d)", r.held, r.charged)
	}
	unpin(rs, a)
	if r.held || r.charged > windowBytes {
		t.Fatalf("the last unpin did not release the array (held %v, charged %d)", r.held, r.charged)
	}
	if a[(n/3*7919)%n] != uint32(n/3)^0x5a5a5a5a {
		t.Fatal("the array's values were lost")
	}
	entries, err := os.ReadDir(rs.dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Fatalf("%d files left in the temporary folder (unlinked files expected)", len(entries))
	}
}
