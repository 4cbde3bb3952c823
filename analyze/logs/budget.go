package logs

import (
	"unsafe"
)

// A count's memory does not grow with its input: every table it keeps is
// bounded (MaxTemplates templates, the key cap, MaxBuckets buckets), and so are
// its buffers (blocks, the longest line, the parts in flight). A count within a
// budget (CountOptions.Budget) therefore charges that bound before it reads
// anything and gives it back when it returns: a count the budget has no room
// for is refused at once, naming the limit, not after it has grown.

// decompressBuffers is what reading a compressed input holds beyond the
// scanner: the prefetch's two 1 MiB blocks and a zstd window of the usual size.
const decompressBuffers = 2<<20 + 8<<20

// memoryBound is the most a count with these options holds at once.
func (pl *countPlan) memoryBound(o CountOptions) int64 {
	blockSize, maxLine := int64(o.blockSize), int64(o.maxLine)
	if blockSize <= 0 {
		blockSize = defaultBlockSize
	}
	if maxLine <= 0 {
		maxLine = MaxLineBytes
	}
	// A scanner's block grows by doubling to the longest line: the old block
	// and the new one are held at once while it grows.
	perScanner := blockSize + maxLine + maxLine/2
	workers := int64(o.workers())
	parallel := workers*perScanner + (2*workers+1)*pl.partBound()
	stream := perScanner + 2*pl.partBound() + sampleSize + decompressBuffers
	return max(parallel, stream)
}

// partBound is the most one part (or the merged result) holds: its counters,
// buckets, template table and key tables, each full.
func (pl *countPlan) partBound() int64 {
	n := int64(len(pl.patterns)) * 8
	if pl.bucket != BucketNone {
		limit := int64(MaxAutoBuckets)
		if pl.bucket > 0 {
			limit = MaxBuckets
		}
		// The buckets and the yearless ones, each with room to grow.
		n += 2 * 2 * limit * int64(pl.columns()) * 8
	}
	n += int64(len(pl.spans)) * int64(unsafe.Sizeof(spanPart{}))
	if pl.overview {
		n += MaxTemplates * (2*MaxTemplateBytes + templateSample + templateOverhead)
	}
	if pl.keyed {
		keyed := int64(0)
		for _, pr := range pl.pairs {
			if pr.key != nil {
				keyed++
			}
		}
		// A key: its bytes, the map entry, its string and state, with room
		// for the slices' growth.
		n += keyed * int64(pl.maxKeys) * (maxKeyBytes + 64 + 2*16 + 2*int64(unsafe.Sizeof(keyState{})))
	}
	return n
}
