package recovery

import (
	"sync/atomic"
)

// The off-heap block of one gzip deep iterator, sized like the native memory a
// JVM GZIPInputStream holds through its Inflater: zlib's 32 KiB inflate window
// (windowBits 15) and its inflate_state of about 7 KiB, rounded up to pages.
const (
	// GzipWindowBytes is the inflate window: the last 32 KiB of output.
	GzipWindowBytes = 32 << 10
	// GzipStateBytes is the room for the inflate state (Huffman tables, code
	// lengths), like zlib's inflate_state.
	GzipStateBytes = 8 << 10
	// GzipOffheapBytes is what one gzip deep iterator maps off the Go heap until it
	// is closed or, failing that, collected.
	GzipOffheapBytes = GzipWindowBytes + GzipStateBytes
)

// offheapCounters is process-wide, like the native memory it models.
var offheapCounters struct {
	bytes             atomic.Int64
	blocks            atomic.Int64
	releasedByClose   atomic.Int64
	releasedByCleanup atomic.Int64
}

// OffheapStats is the process-wide state of the off-heap blocks of gzip deep
// iterators. Bytes and Blocks are what is mapped now.
type OffheapStats struct {
	// Bytes is the memory currently mapped by live gzip windows.
	Bytes int64
	// Blocks is the number of gzip windows currently mapped.
	Blocks int64
	// ReleasedByClose counts windows unmapped by an explicit Close.
	ReleasedByClose int64
	// ReleasedByCleanup counts windows unmapped by the runtime.AddCleanup that
	// runs after the garbage collector found their iterator unreachable: the
	// analogue of the JVM finalizer of an unclosed GZIPInputStream.
	ReleasedByCleanup int64
}

// ReadOffheap returns the current off-heap figures.
func ReadOffheap() OffheapStats {
	return OffheapStats{
		Bytes:             offheapCounters.bytes.Load(),
		Blocks:            offheapCounters.blocks.Load(),
		ReleasedByClose:   offheapCounters.releasedByClose.Load(),
		ReleasedByCleanup: offheapCounters.releasedByCleanup.Load(),
	}
}

// offheapBlock is one anonymous mapping. It holds no pointer to its owner, so a
// cleanup attached to the owner can take it as its argument.
type offheapBlock struct {
	mem      []byte
	released atomic.Bool
}

// allocOffheap maps n bytes of anonymous memory, resident from the start.
func allocOffheap(n int) (*offheapBlock, error) {
	mem, err := mapAnonymous(n)
	if err != nil {
		return nil, err
	}
	offheapCounters.bytes.Add(int64(n))
	offheapCounters.blocks.Add(1)
	return &offheapBlock{mem: mem}, nil
}

// release unmaps the block once; later calls do nothing.
func (b *offheapBlock) release(byCleanup bool) {
	if !b.released.CompareAndSwap(false, true) {
		return
	}
	n := len(b.mem)
	unmapAnonymous(b.mem)
	b.mem = nil
	offheapCounters.bytes.Add(-int64(n))
	offheapCounters.blocks.Add(-1)
	if byCleanup {
		offheapCounters.releasedByCleanup.Add(1)
	} else {
		offheapCounters.releasedByClose.Add(1)
	}
}

// releaseByCleanup is the function runtime.AddCleanup runs.
func releaseByCleanup(b *offheapBlock) { b.release(true) }
