package jvm

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"

	"github.com/leakui/leakui/analyze"
)

// HeapInfo is what `jcmd <pid> GC.heap_info` says of the Java heap: how much of
// it objects use and, for the collectors that print it, the address range the heap
// is reserved at (which /proc/<pid>/smaps turns into resident pages).
type HeapInfo struct {
	// Collector names the garbage collector the output is from: "G1", "Serial",
	// "Parallel", "ZGC", "Shenandoah", or "" when the layout is not known.
	Collector string `json:"collector"`
	// Used is the bytes objects use, summed over the generations; Capacity is
	// the heap's committed size as printed ("total", "capacity", "committed").
	Used     int64 `json:"used"`
	Capacity int64 `json:"capacity"`
	// Start and End are the heap's reserved address range [Start, End), zero
	// when the collector does not print it (ZGC).
	Start uint64 `json:"start,omitempty"`
	End   uint64 `json:"end,omitempty"`
}

// The lines GC.heap_info prints, by collector (JDK 8 to 25):
//
//	 garbage-first heap   total 262144K, used 1685K [0x00000000f0000000, 0x0000000100000000)
//	 def new generation   total 9792K, used 4523K [0x00000000f0000000, 0x00000000f0aa0000, 0x00000000f5550000)
//	 PSYoungGen      total 76288K, used 3932K [0x000000076ab00000, 0x0000000770000000, 0x00000007c0000000)
//	 ZHeap           used 8M, capacity 256M, max capacity 256M
//	Shenandoah Heap
//	 256M max, 256M soft max, 256M committed, 11M used
//	Reserved region:
//	 - [0x00000000f0000000, 0x0000000100000000)
//
// Metaspace's "used 169K, committed 384K" lines have no "total" and are not the heap.
var (
	heapGenLine        = regexp.MustCompile(`^\s*(\S.*?)\s+total (\d+)([BKMG]), used (\d+)([BKMG])(?:\s*\[(0x[0-9a-fA-F]+)(?:, (0x[0-9a-fA-F]+))*(?:, (0x[0-9a-fA-F]+))\))?`)
	heapZLine          = regexp.MustCompile(`^\s*ZHeap\s+used (\d+)([BKMG]), capacity (\d+)([BKMG])`)
	heapShenandoahLine = regexp.MustCompile(`^\s*(\d+)([BKMG]) max, .*?(\d+)([BKMG]) committed, (\d+)([BKMG]) used`)
	heapRangeLine      = regexp.MustCompile(`^\s*- \[(0x[0-9a-fA-F]+), (0x[0-9a-fA-F]+)\)`)
)

// ParseHeapInfo reads the output of `jcmd <pid> GC.heap_info`. It fails with
// ErrEmpty on no input and ErrUnsupportedKind when no line names the heap's use.
func ParseHeapInfo(r io.Reader) (*HeapInfo, error) {
	l := newLineReader(r, nil)
	h := &HeapInfo{}
	found, shenandoah, reserved := false, false, false
	for l.next() {
		line := l.line()
		if m := heapGenLine.FindSubmatch(line); m != nil {
			name := string(bytes.TrimSpace(m[1]))
			if name == "Metaspace" || name == "class space" {
				continue
			}
			total, err1 := heapAmount(m[2], m[3])
			used, err2 := heapAmount(m[4], m[5])
			if err := firstErr(err1, err2); err != nil {
				return nil, fmt.Errorf("%w: GC.heap_info line %d: %v", analyze.ErrMalformed, l.num, err)
			}
			h.Collector = firstNonEmpty(h.Collector, heapCollector(name))
			h.Used, h.Capacity = satAdd(h.Used, used), satAdd(h.Capacity, total)
			found = true
			if len(m[6]) > 0 && len(m[8]) > 0 {
				h.widen(m[6], m[8])
			}
			continue
		}
		if m := heapZLine.FindSubmatch(line); m != nil {
			used, err1 := heapAmount(m[1], m[2])
			capacity, err2 := heapAmount(m[3], m[4])
			if err := firstErr(err1, err2); err != nil {
				return nil, fmt.Errorf("%w: GC.heap_info line %d: %v", analyze.ErrMalformed, l.num, err)
			}
			h.Collector, h.Used, h.Capacity, found = "ZGC", used, capacity, true
			continue
		}
		t := bytes.TrimSpace(line)
		switch {
		case bytes.Equal(t, []byte("Shenandoah Heap")):
			shenandoah = true
			continue
		case bytes.Equal(t, []byte("Reserved region:")):
			reserved = true
			continue
		}
		if shenandoah && !found {
			if m := heapShenandoahLine.FindSubmatch(line); m != nil {
				committed, err1 := heapAmount(m[3], m[4])
				used, err2 := heapAmount(m[5], m[6])
				if err := firstErr(err1, err2); err != nil {
					return nil, fmt.Errorf("%w: GC.heap_info line %d: %v", analyze.ErrMalformed, l.num, err)
				}
				h.Collector, h.Used, h.Capacity, found = "Shenandoah", used, committed, true
				continue
			}
		}
		if reserved {
			if m := heapRangeLine.FindSubmatch(line); m != nil {
				h.widen(m[1], m[2])
			}
			reserved = false
		}
	}
	if err := l.readErr(); err != nil {
		return nil, err
	}
	switch {
	case found:
		if h.End <= h.Start {
			h.Start, h.End = 0, 0
		}
		return h, nil
	case l.num == 0:
		return nil, analyze.ErrEmpty
	}
	return nil, fmt.Errorf("%w: no heap line (\"total …, used …\") in %d lines of GC.heap_info", analyze.ErrUnsupportedKind, l.num)
}

// widen extends the heap's address range to [start, end) in hexadecimal.
func (h *HeapInfo) widen(start, end []byte) {
	s, err1 := strconv.ParseUint(string(start[2:]), 16, 64)
	e, err2 := strconv.ParseUint(string(end[2:]), 16, 64)
	if err1 != nil || err2 != nil || e <= s {
		return
	}
	if h.Start == 0 || s < h.Start {
		h.Start = s
	}
	h.End = max(h.End, e)
}

// heapCollector names the collector of a generation line.
func heapCollector(name string) string {
	switch name {
	case "garbage-first heap":
		return "G1"
	case "def new generation", "tenured generation":
		return "Serial"
	case "PSYoungGen", "ParOldGen", "PSOldGen":
		return "Parallel"
	case "par new generation", "concurrent mark-sweep generation":
		return "CMS"
	}
	return ""
}

// heapAmount parses "262144" with unit "K" into bytes (K is 1024, as the JVM
// prints it).
func heapAmount(digits, unit []byte) (int64, error) {
	v, err := parseCount(digits)
	if err != nil {
		return 0, err
	}
	scale := map[byte]int64{'B': 1, 'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}[unit[0]]
	if v > math.MaxInt64/scale {
		return 0, fmt.Errorf("amount %s%s out of range", digits, unit)
	}
	return v * scale, nil
}

func satAdd(a, b int64) int64 {
	if s, ok := addInt64(a, b); ok {
		return s
	}
	return math.MaxInt64
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
