package recovery

import (
	"sync"
	"sync/atomic"
)

// The off-heap block of one gzip deep iterator, sized like the native memory a
// JVM GZIPInputStream holds through its Inflater: zlib's 32 KiB inflate window
// (windowBits 15) and its inflate_state of about 7 KiB, rounded up to pages. Its
// pages become resident as they are written, so an iterator that read one
// message holds about three pages (the state's two and the window's first),
// which is what TestGzipModelMatchesTheJVM measures against a JVM on JDK 17.
const (
	// GzipWindowBytes is the inflate window: the last 32 KiB of output.
	GzipWindowBytes = 32 << 10
	// GzipStateBytes is the room for the inflate state (Huffman tables, code
	// lengths), like zlib's inflate_state.
	GzipStateBytes = 8 << 10
	// GzipOffheapBytes is what one gzip deep iterator maps off the Go heap: its
	// window and its state.
	GzipOffheapBytes = GzipWindowBytes + GzipStateBytes
)

// JVMGzipStreamBytes is the figure that came from the JVM: the resident-set
// growth per GZIPInputStream left open after reading the first inner message of
// a v0 wrapper of the default log, measured by recovery/testdata/jvm/GzipLeak.java
// on OpenJDK 17.0.15 (2,000 streams, Java heap pre-touched, so the growth is
// zlib's malloc'd state and window). TestGzipModelMatchesTheJVM measures it
// again and checks both this figure and the model against it.
const JVMGzipStreamBytes = 12_448

// offheapCounters is process-wide, like the native memory it models.
var offheapCounters struct {
	bytes             atomic.Int64
	blocks            atomic.Int64
	releasedByClose   atomic.Int64
	releasedByCleanup atomic.Int64
}

// allocator is the model of what malloc does with zlib's memory once freed:
// glibc keeps freed chunks in its free lists, resident, and hands them out to the
// next allocations rather than returning them to the kernel. The JVM reference
// kept all of the growth after its streams were collected (about 102%), so the
// model keeps every released block and reuses it; TrimOffheap returns them.
var allocator struct {
	mu   sync.Mutex
	free [][]byte
	all  [][]byte // every mapping made and not trimmed, live or free
}

// OffheapStats is the process-wide state of the off-heap blocks of gzip deep
// iterators. Bytes and Blocks are what live iterators hold now; RetainedBytes
// is what the allocator model keeps after release.
type OffheapStats struct {
	// Bytes is the memory currently mapped by live gzip windows.
	Bytes int64
	// Blocks is the number of gzip windows currently mapped.
	Blocks int64
	// RetainedBytes is the memory of released windows the allocator model
	// keeps for reuse, resident as far as it was touched, as glibc keeps freed
	// chunks.
	RetainedBytes int64
	// ReleasedByClose counts windows released by an explicit Close.
	ReleasedByClose int64
	// ReleasedByCleanup counts windows released by the runtime.AddCleanup that
	// runs after the garbage collector found their iterator unreachable: the
	// analogue of the JVM finalizer (Cleaner) of an unclosed GZIPInputStream.
	ReleasedByCleanup int64
}

// ReadOffheap returns the current off-heap figures.
func ReadOffheap() OffheapStats {
	allocator.mu.Lock()
	retained := int64(len(allocator.free)) * GzipOffheapBytes
	allocator.mu.Unlock()
	return OffheapStats{
		Bytes:             offheapCounters.bytes.Load(),
		Blocks:            offheapCounters.blocks.Load(),
		RetainedBytes:     retained,
		ReleasedByClose:   offheapCounters.releasedByClose.Load(),
		ReleasedByCleanup: offheapCounters.releasedByCleanup.Load(),
	}
}

// TrimOffheap unmaps the blocks the allocator model keeps, as malloc_trim would,
// and returns how many bytes it unmapped.
func TrimOffheap() int64 {
	allocator.mu.Lock()
	free := allocator.free
	allocator.free = nil
	allocator.mu.Unlock()
	for _, mem := range free {
		unmapAnonymous(mem)
	}
	allocator.mu.Lock()
	kept := allocator.all[:0]
	for _, mem := range allocator.all {
		if !containsMapping(free, mem) {
			kept = append(kept, mem)
		}
	}
	allocator.all = kept
	allocator.mu.Unlock()
	return int64(len(free)) * GzipOffheapBytes
}

func containsMapping(list [][]byte, mem []byte) bool {
	for _, m := range list {
		if &m[0] == &mem[0] {
			return true
		}
	}
	return false
}

// OffheapResident returns how many bytes of the model's mappings, live and
// kept, are resident (mincore on Linux): what the model adds to the process's
// RSS, whatever the Go heap does meanwhile. It costs a system call per mapping.
func OffheapResident() (int64, error) {
	allocator.mu.Lock()
	defer allocator.mu.Unlock()
	var n int64
	for _, mem := range allocator.all {
		r, err := residentBytes(mem)
		if err != nil {
			return n, err
		}
		n += r
	}
	return n, nil
}

// offheapBlock is one block of GzipOffheapBytes. It holds no pointer to its
// owner, so a cleanup attached to the owner can take it as its argument.
type offheapBlock struct {
	mem      []byte
	released atomic.Bool
}

// allocOffheap hands out a block: a released one if the allocator keeps any,
// else a new mapping whose pages become resident as they are written.
func allocOffheap() (*offheapBlock, error) {
	allocator.mu.Lock()
	var mem []byte
	if n := len(allocator.free); n > 0 {
		mem = allocator.free[n-1]
		allocator.free = allocator.free[:n-1]
	}
	allocator.mu.Unlock()
	if mem == nil {
		var err error
		if mem, err = mapAnonymous(GzipOffheapBytes); err != nil {
			return nil, err
		}
		allocator.mu.Lock()
		allocator.all = append(allocator.all, mem)
		allocator.mu.Unlock()
	}
	offheapCounters.bytes.Add(GzipOffheapBytes)
	offheapCounters.blocks.Add(1)
	return &offheapBlock{mem: mem}, nil
}

// release gives the block back to the allocator model once; later calls do
// nothing.
func (b *offheapBlock) release(byCleanup bool) {
	if !b.released.CompareAndSwap(false, true) {
		return
	}
	allocator.mu.Lock()
	allocator.free = append(allocator.free, b.mem)
	allocator.mu.Unlock()
	b.mem = nil
	offheapCounters.bytes.Add(-GzipOffheapBytes)
	offheapCounters.blocks.Add(-1)
	if byCleanup {
		offheapCounters.releasedByCleanup.Add(1)
	} else {
		offheapCounters.releasedByClose.Add(1)
	}
}

// releaseByCleanup is the function runtime.AddCleanup runs.
func releaseByCleanup(b *offheapBlock) { b.release(true) }
