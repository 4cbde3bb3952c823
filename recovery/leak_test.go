package recovery

import (
	"context"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/lab/child"
	"go.uber.org/goleak"
)

// Environment of the leak children.
const (
	envDir      = "RECOVERY_TEST_DIR"
	envVariant  = "RECOVERY_TEST_VARIANT"
	envDecoders = "RECOVERY_TEST_DECODERS"
)

// leakReport is what a child measured around one recovery.
type leakReport struct {
	Counters Counters
	// Goroutines before and after (settled), and the goroutines whose stack
	// holds zstd's stream decoder.
	GoroutinesBefore, GoroutinesAfter, ZstdDecoderGoroutines int
	// Memory before, right after, and after forced garbage collections.
	Before, After, AfterGC child.Memory
	// Off-heap figures at the same three moments.
	OffheapBefore, OffheapAfter, OffheapAfterGC OffheapStats
	// GCsDuringRecovery is how many collections ran during Recover.
	GCsDuringRecovery uint32
	// Resident is what mincore counts of the off-heap blocks right after.
	Resident int64
}

func init() {
	children["recover"] = childRecover
}

// childRecover recovers the log in $RECOVERY_TEST_DIR and measures.
func childRecover() (any, error) {
	variant, err := ParseVariant(os.Getenv(envVariant))
	if err != nil {
		return nil, err
	}
	decoders := DecodersModel
	if s := os.Getenv(envDecoders); s != "" {
		if decoders, err = ParseDecoders(s); err != nil {
			return nil, err
		}
	}
	var rep leakReport
	runtime.GC()
	runtime.GC()
	rep.GoroutinesBefore = settledGoroutines()
	rep.Before, rep.OffheapBefore = child.ReadMemory(), ReadOffheap()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	gcs := ms.NumGC
	res, err := Recover(context.Background(), os.Getenv(envDir), RecoverConfig{Variant: variant, Decoders: decoders})
	if err != nil {
		return nil, err
	}
	rep.After, rep.OffheapAfter = child.ReadMemory(), ReadOffheap()
	if rep.Resident, err = OffheapResident(); err != nil {
		return nil, err
	}
	runtime.ReadMemStats(&ms)
	rep.GCsDuringRecovery = ms.NumGC - gcs
	rep.Counters = res.Counters
	rep.GoroutinesAfter = settledGoroutines()
	rep.ZstdDecoderGoroutines = countStacks("zstd.(*Decoder).startStreamDecoder")
	// The finalizer analogy: collect until the cleanups have unmapped every window.
	runtime.GC()
	for deadline := time.Now().Add(10 * time.Second); ReadOffheap().Bytes > 0 && time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
	runtime.GC()
	rep.AfterGC, rep.OffheapAfterGC = child.ReadMemory(), ReadOffheap()
	return rep, nil
}

// countStacks counts the goroutines whose stack mentions fn.
func countStacks(fn string) int {
	buf := make([]byte, 16<<20)
	n := 0
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, fn) {
			n++
		}
	}
	return n
}

// settledGoroutines waits until the goroutine count stops changing: a closed
// decoder's goroutines end shortly after Close returns.
func settledGoroutines() int {
	n, stable := runtime.NumGoroutine(), 0
	for i := 0; i < 200 && stable < 5; i++ {
		time.Sleep(2 * time.Millisecond)
		if m := runtime.NumGoroutine(); m == n {
			stable++
		} else {
			n, stable = m, 0
		}
	}
	return n
}

func measure(t *testing.T, dir string, v Variant, d Decoders, env ...string) leakReport {
	t.Helper()
	var rep leakReport
	runInChild(t, "recover", &rep, append(env, envDir+"="+dir, envVariant+"="+v.String(), envDecoders+"="+d.String())...)
	return rep
}

// bigZstdBatches is a log whose batches are about 153 KiB before compression:
// two zstd blocks of at most 128 KiB each.
func bigZstdBatches() LogConfig {
	return LogConfig{Partitions: 1, Segments: 2, BatchesPerSegment: 8, RecordsPerBatch: 300, ValueBytes: 512, Codec: CodecZstd, Format: FormatV2}
}

// zstdGoroutinesPerStream is what klauspost/compress/zstd starts for one stream
// decode when its concurrency is above 1: startStreamDecoder and the two stages
// it spawns ("Spawn 3 go routines" in decoder.go).
const zstdGoroutinesPerStream = 3

// TestZstdLeakyLeaksGoroutinesPerBatch: with GOMAXPROCS=2 the decoder's
// concurrency is 2, so a frame of two or more blocks fills its pipeline; an
// iterator that is never closed leaves its three goroutines blocked for good.
func TestZstdLeakyLeaksGoroutinesPerBatch(t *testing.T) {
	dir, info := writeLog(t, bigZstdBatches())
	for _, v := range Variants {
		rep := measure(t, dir, v, DecodersModel, "GOMAXPROCS=2")
		leaked := rep.GoroutinesAfter - rep.GoroutinesBefore
		t.Logf("%s: goroutines %d → %d, heap in use %d → %d after GC", v, rep.GoroutinesBefore, rep.GoroutinesAfter, rep.Before.HeapInuse, rep.AfterGC.HeapInuse)
		want := 0
		// Every batch is larger than the index interval, so every batch but the
		// first of each segment gets an index entry, and only those an iterator.
		due := info.Batches - int64(len(info.Partitions[0].Segments))
		if v == VariantLeaky {
			want = zstdGoroutinesPerStream * int(due)
			if rep.Counters.IteratorsOpened != due || rep.Counters.IndexEntries != due || rep.Counters.IteratorsClosed != 0 {
				t.Errorf("leaky: opened %d closed %d for %d index entries, want %d 0 %d", rep.Counters.IteratorsOpened, rep.Counters.IteratorsClosed,
					rep.Counters.IndexEntries, due, due)
			}
			perIterator := (rep.AfterGC.HeapInuse - rep.Before.HeapInuse) / due
			t.Logf("leaky: %d goroutines and %d KiB of heap still in use per unclosed iterator after GC", leaked/int(due), perIterator>>10)
			if perIterator < 64<<10 {
				t.Errorf("leaky: only %d bytes of heap retained per leaked decoder; its goroutines hold its buffers", perIterator)
			}
		}
		if leaked != want || rep.ZstdDecoderGoroutines != want {
			t.Errorf("%s: %d more goroutines, %d in zstd's stream decoder; want %d", v, leaked, rep.ZstdDecoderGoroutines, want)
		}
	}
}

// TestZstdLeakyNeedsMultiBlockBatches records the honest limit of the zstd leak:
// batches of a single zstd block (here 10 KiB) are decoded to the end by the
// decoder's goroutines, which then exit, so an unclosed iterator leaks nothing.
func TestZstdLeakyNeedsMultiBlockBatches(t *testing.T) {
	cfg := LogConfig{Partitions: 1, Segments: 2, BatchesPerSegment: 20, RecordsPerBatch: 20, ValueBytes: 512, Codec: CodecZstd, Format: FormatV2}
	dir, _ := writeLog(t, cfg)
	rep := measure(t, dir, VariantLeaky, DecodersModel, "GOMAXPROCS=2")
	if rep.Counters.IteratorsOpened == 0 || rep.Counters.IteratorsOpened != rep.Counters.IndexEntries || rep.GoroutinesAfter != rep.GoroutinesBefore {
		t.Fatalf("single-block batches: %d iterators left %d → %d goroutines", rep.Counters.IteratorsOpened, rep.GoroutinesBefore, rep.GoroutinesAfter)
	}
}

// TestKafkaGoZstdDoesNotLeak: kafka-go's codec decodes synchronously from a pool,
// so even big batches left unclosed leave no goroutine.
func TestKafkaGoZstdDoesNotLeak(t *testing.T) {
	dir, info := writeLog(t, bigZstdBatches())
	rep := measure(t, dir, VariantLeaky, DecodersKafkaGo, "GOMAXPROCS=2")
	if rep.Counters.IteratorsOpened != info.Batches-int64(len(info.Partitions[0].Segments)) || rep.GoroutinesAfter != rep.GoroutinesBefore || rep.ZstdDecoderGoroutines != 0 {
		t.Fatalf("kafka-go zstd leaky: %d iterators, goroutines %d → %d", rep.Counters.IteratorsOpened, rep.GoroutinesBefore, rep.GoroutinesAfter)
	}
}

// TestZstdFixesLeaveNoGoroutines runs the fixes in this process under goleak.
func TestZstdFixesLeaveNoGoroutines(t *testing.T) {
	dir, _ := writeLog(t, bigZstdBatches())
	for _, v := range []Variant{VariantClose, VariantDrain, VariantHeader} {
		if _, err := Recover(context.Background(), dir, RecoverConfig{Variant: v}); err != nil {
			t.Fatal(err)
		}
		goleak.VerifyNone(t)
	}
}

// TestGzipLeakyHoldsOffheapUntilGC is the seed's "heap empty, off-heap full" on
// the data it happened on, a gzip log in message format v0: 0.10.0.0 (leaky)
// opens a deep iterator only where an index entry is due and leaves every one
// open, each holding its off-heap block, so RSS minus the Go heap grows by about
// the calibrated three pages per iterator while the heap stays small. A
// collection runs the cleanups (the finalizers), which give the blocks back to
// the allocator model, which keeps them resident as glibc does. close frees
// every block at once and reuses it, so it grows by about one block in all.
func TestGzipLeakyHoldsOffheapUntilGC(t *testing.T) {
	cfg := LogConfig{Partitions: 1, Segments: 2, BatchesPerSegment: 300, RecordsPerBatch: 20, ValueBytes: 512, Codec: CodecGzip, Format: FormatV0}
	dir, info := writeLog(t, cfg)

	leaky := measure(t, dir, VariantLeaky, DecodersModel, "GOGC=off")
	opened := leaky.Counters.IteratorsOpened
	// The per-iterator cost TestGzipModelMatchesTheJVM calibrates: two pages of
	// state and one of window, less than the block's size.
	const perIterator = 3 << 12
	want := opened * perIterator
	// RSS minus heap in use is what the lab charts. It is exact to within the
	// heap's growth into pages that were already resident (free heap reused),
	// which raises heap in use but not the RSS: allow pageSlack for that.
	const pageSlack = 512 << 10
	rssGrowth := leaky.After.RSS - leaky.Before.RSS
	gapGrowth := gap(leaky.After) - gap(leaky.Before)
	heapGrowth := leaky.After.HeapInuse - leaky.Before.HeapInuse
	t.Logf("leaky: %d iterators for %d index entries and %d batches (%d GCs); RSS %+d, RSS−heap in use %+d, heap in use %+d; %d mapped",
		opened, leaky.Counters.IndexEntries, info.Batches, leaky.GCsDuringRecovery, rssGrowth, gapGrowth, heapGrowth, leaky.OffheapAfter.Bytes)
	switch {
	case opened == 0 || opened != leaky.Counters.IndexEntries || opened >= info.Batches || leaky.Counters.IteratorsClosed != 0:
		t.Fatalf("leaky: opened %d closed %d, want one per index entry (%d) and none closed", opened, leaky.Counters.IteratorsClosed, leaky.Counters.IndexEntries)
	case leaky.GCsDuringRecovery != 0:
		t.Fatalf("leaky: %d collections ran under GOGC=off", leaky.GCsDuringRecovery)
	case leaky.OffheapAfter.Bytes != opened*GzipOffheapBytes:
		t.Fatalf("leaky: %d bytes held by live iterators, want %d blocks of %d", leaky.OffheapAfter.Bytes, opened, GzipOffheapBytes)
	case leaky.Resident < want*3/4 || leaky.Resident > want*5/4:
		t.Fatalf("leaky: mincore counts %d resident bytes, want about %d (%d iterators × %d)", leaky.Resident, want, opened, perIterator)
	case gapGrowth < want*3/4 || !raceEnabled && gapGrowth > want*5/4+pageSlack:
		// Under the race detector its shadow of the heap adds to the gap.
		t.Fatalf("leaky: RSS minus heap in use grew by %d bytes, want about %d (%d iterators × %d)", gapGrowth, want, opened, perIterator)
	case heapGrowth > gapGrowth:
		t.Fatalf("leaky: the Go heap grew by %d bytes, more than the %d outside it", heapGrowth, gapGrowth)
	}
	t.Logf("forced GC: RSS %+d; %d bytes kept by the allocator model", leaky.AfterGC.RSS-leaky.After.RSS, leaky.OffheapAfterGC.RetainedBytes)
	if leaky.OffheapAfterGC.Bytes != 0 || leaky.OffheapAfterGC.ReleasedByCleanup-leaky.OffheapBefore.ReleasedByCleanup != opened ||
		leaky.OffheapAfterGC.RetainedBytes < opened*GzipOffheapBytes {
		t.Fatalf("forced GC: %d bytes still held, %d released by cleanups, %d retained",
			leaky.OffheapAfterGC.Bytes, leaky.OffheapAfterGC.ReleasedByCleanup-leaky.OffheapBefore.ReleasedByCleanup, leaky.OffheapAfterGC.RetainedBytes)
	}

	closed := measure(t, dir, VariantClose, DecodersModel, "GOGC=off")
	closedGrowth := gap(closed.After) - gap(closed.Before)
	t.Logf("close: RSS−heap in use %+d, heap in use %+d", closedGrowth, closed.After.HeapInuse-closed.Before.HeapInuse)
	if closed.OffheapAfter.Bytes != 0 || closed.OffheapAfter.ReleasedByClose-closed.OffheapBefore.ReleasedByClose != closed.Counters.IteratorsOpened ||
		closed.Counters.IteratorsOpened != opened || gapGrowth-closedGrowth < want*3/4 {
		t.Fatalf("close: %d bytes held, %d released by Close, RSS minus heap in use grew by %d (leaky: %d)",
			closed.OffheapAfter.Bytes, closed.OffheapAfter.ReleasedByClose-closed.OffheapBefore.ReleasedByClose, closedGrowth, gapGrowth)
	}
}

// gap is the process memory outside the Go heap in use.
func gap(m child.Memory) int64 { return m.RSS - m.HeapInuse }

// TestPooledCodecsRetainNothing: snappy and lz4 (kafka-go's codecs in both decoder
// sets) and kafka-go's gzip and zstd leave no goroutine and no heap behind an
// unclosed iterator once the garbage collector has run (twice, which also empties
// sync.Pools).
func TestPooledCodecsRetainNothing(t *testing.T) {
	for _, c := range []struct {
		codec    Codec
		decoders Decoders
	}{{CodecSnappy, DecodersModel}, {CodecLz4, DecodersModel}, {CodecGzip, DecodersKafkaGo}, {CodecZstd, DecodersKafkaGo}} {
		cfg := LogConfig{Partitions: 1, Segments: 2, BatchesPerSegment: 10, RecordsPerBatch: 20, ValueBytes: 512, Codec: c.codec, Format: FormatV2}
		dir, _ := writeLog(t, cfg)
		rep := measure(t, dir, VariantLeaky, c.decoders, "GOMAXPROCS=2")
		retained := rep.AfterGC.HeapInuse - rep.Before.HeapInuse
		t.Logf("%s/%s: %d unclosed iterators, goroutines %d → %d, heap in use %+d after GC",
			c.codec, c.decoders, rep.Counters.IteratorsOpened, rep.GoroutinesBefore, rep.GoroutinesAfter, retained)
		if rep.Counters.IteratorsOpened == 0 || rep.Counters.IteratorsOpened != rep.Counters.IndexEntries || rep.GoroutinesAfter != rep.GoroutinesBefore || retained > 1<<20 {
			t.Errorf("%s/%s: %d iterators left %d goroutines and %d bytes of heap", c.codec, c.decoders,
				rep.Counters.IteratorsOpened, rep.GoroutinesAfter-rep.GoroutinesBefore, retained)
		}
	}
}
