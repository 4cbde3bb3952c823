package jvm

import (
	"bytes"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/fixtures"
)

// heapAnchor adds up what the fixture's own lines say, with a regexp of its own:
// the "used NK" of every generation line ("total NK, used NK"), ZGC's "ZHeap
// used NM" and Shenandoah's "… committed, NK used", and the lowest and highest
// address of the generations (or of Shenandoah's reserved region).
func heapAnchor(t *testing.T, text string) (used int64, lo, hi uint64) {
	t.Helper()
	unit := map[string]int64{"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
	for _, m := range regexp.MustCompile(`(?m)(?:total \d+K, used |ZHeap\s+used |committed, )(\d+)([KMG])`).FindAllStringSubmatch(text, -1) {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		used += n * unit[m[2]]
	}
	for _, m := range regexp.MustCompile(`(?m)(?:total \d+K, used \d+K |^ - )\[(0x[0-9a-f]+),.*?(0x[0-9a-f]+)\)`).FindAllStringSubmatch(text, -1) {
		a, _ := strconv.ParseUint(m[1][2:], 16, 64)
		b, _ := strconv.ParseUint(m[2][2:], 16, 64)
		if lo == 0 || a < lo {
			lo = a
		}
		hi = max(hi, b)
	}
	return used, lo, hi
}

// TestHeapInfoFixtures reads GC.heap_info of each collector of OpenJDK 17 (taken
// on a real JVM, testdata/capture/gc-heap-info-jdk17-*.txt) and checks the use and
// the reserved range against what the lines say.
func TestHeapInfoFixtures(t *testing.T) {
	for collector, file := range map[string]string{"G1": "g1", "Serial": "serial", "Parallel": "parallel", "ZGC": "zgc", "Shenandoah": "shenandoah"} {
		b, err := os.ReadFile(fixtures.Path(t, "capture", "gc-heap-info-jdk17-"+file+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		h, err := ParseHeapInfo(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		used, lo, hi := heapAnchor(t, string(b))
		if h.Collector != collector || h.Used != used || h.Used <= 0 || h.Start != lo || h.End != hi {
			t.Errorf("%s: %+v; the lines say used %d in [%#x, %#x)", file, h, used, lo, hi)
		}
		if collector != "ZGC" && h.End-h.Start != 128<<20 {
			t.Errorf("%s: the heap's range is %d bytes; the JVM ran with -Xmx128m", file, h.End-h.Start)
		}
	}
	if _, err := ParseHeapInfo(strings.NewReader("12345:\n Metaspace       used 73K, committed 320K, reserved 1114112K\n")); !isErr(err, analyze.ErrUnsupportedKind) {
		t.Errorf("metaspace only: %v, want ErrUnsupportedKind", err)
	}
	if _, err := ParseHeapInfo(strings.NewReader(" garbage-first heap   total 99999999999999999999K, used 1K [0x1, 0x2)\n")); !isErr(err, analyze.ErrMalformed) {
		t.Errorf("an amount out of range: %v, want ErrMalformed", err)
	}
}

func FuzzParseHeapInfo(f *testing.F) {
	for _, p := range fixtures.Glob(f, "capture", "gc-heap-info-*.txt") {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ParseHeapInfo(bytes.NewReader(data))
		if err != nil {
			fuzzErr(t, err)
			return
		}
		if h.Used < 0 || h.Capacity < 0 || (h.End != 0 && h.End <= h.Start) {
			t.Fatalf("%+v", h)
		}
	})
}
