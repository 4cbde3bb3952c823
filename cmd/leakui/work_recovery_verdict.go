package main

import (
	"fmt"

	"github.com/leakui/leakui/recovery"
	"github.com/leakui/leakui/workload"
)

// recoveryVerdict is the one line `leakui work recovery` ends with: whether deep
// iterators were left open and what they hold, in the run's own numbers.
func recoveryVerdict(v recovery.Variant, log recovery.LogConfig, c recovery.Counters, counters map[string]int64, before, after workload.Memory) string {
	open := c.IteratorsOpened - c.IteratorsClosed
	outside := (after.RSS - after.HeapInuse) - (before.RSS - before.HeapInuse)
	heap := after.HeapInuse - before.HeapInuse
	goroutines := after.Goroutines - before.Goroutines
	what := fmt.Sprintf("%s over %s in message format %s", v, log.Codec, log.Format)
	var verdict string
	switch {
	case open > 0 && (counters["offheap_bytes"] > 0 || goroutines > 0 || outside > 16<<20):
		verdict = fmt.Sprintf("LEAK: %s left %d of %d deep iterators open (one per index entry due); the memory outside the Go heap (RSS − heap in use) grew by %s while the heap grew by %s",
			what, open, c.IteratorsOpened, sizeText(outside), sizeText(heap))
		if goroutines > 0 {
			verdict += fmt.Sprintf(", and %d goroutines are stranded (klauspost/compress's zstd stream decoder: Go library behaviour, not Kafka's)", goroutines)
		}
		verdict += "."
	case open > 0:
		verdict = fmt.Sprintf("no leak: %s left %d deep iterators unclosed, but their decoders hold nothing (RSS − heap in use %s, goroutines %+d).",
			what, open, sizeText(outside), goroutines)
	default:
		verdict = fmt.Sprintf("no leak: %s opened %d deep iterators and closed them all (RSS − heap in use %s, goroutines %+d).",
			what, c.IteratorsOpened, sizeText(outside), goroutines)
	}
	if c.Truncations > 0 {
		verdict += fmt.Sprintf(" Recovery truncated %d segments (%d bytes) and deleted %d.", c.Truncations, c.TruncatedBytes, c.SegmentsDeleted)
	}
	return "verdict: " + verdict
}

// sizeText renders a signed byte count in binary units.
func sizeText(n int64) string {
	sign := "+"
	if n < 0 {
		sign, n = "-", -n
	}
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%s%.1f GiB", sign, float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%s%.1f MiB", sign, float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%s%.1f KiB", sign, float64(n)/(1<<10))
	}
	return fmt.Sprintf("%s%d B", sign, n)
}
