package child

import (
	"bytes"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
)

// Memory is a process's own view of its memory and goroutines at one moment.
type Memory struct {
	// Goroutines is runtime.NumGoroutine().
	Goroutines int64
	// HeapInuse is the Go heap in use in bytes (runtime.MemStats.HeapInuse).
	HeapInuse int64
	// HeapSys is the heap memory obtained from the OS in bytes.
	HeapSys int64
	// RSS is the resident set size in bytes from /proc/self/statm (0 where unknown).
	RSS int64
}

var memSamples = []metrics.Sample{
	{Name: "/memory/classes/heap/objects:bytes"},
	{Name: "/memory/classes/heap/unused:bytes"},
	{Name: "/memory/classes/heap/free:bytes"},
	{Name: "/memory/classes/heap/released:bytes"},
}

// ReadMemory reads the current figures without stopping the world (runtime/metrics),
// so it is cheap enough to call after every unit of work.
func ReadMemory() Memory {
	s := make([]metrics.Sample, len(memSamples))
	copy(s, memSamples)
	metrics.Read(s)
	u := func(i int) int64 {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(s[i].Value.Uint64())
	}
	objects, unused, free, released := u(0), u(1), u(2), u(3)
	return Memory{
		Goroutines: int64(runtime.NumGoroutine()),
		HeapInuse:  objects + unused,
		HeapSys:    objects + unused + free + released,
		RSS:        ReadRSS(),
	}
}

// ReadRSS returns the resident set size of this process in bytes, or 0 when
// /proc/self/statm cannot be read.
func ReadRSS() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}
