package main

import (
	"fmt"

	"github.com/leakui/leakui/lab/child"
	"github.com/leakui/leakui/recovery"
)

// recoveryVerdict is the one line `leakui work recovery` ends with: whether deep
// iterators were left open and what they hold, in the run's own numbers.
func recoveryVerdict(v recovery.Variant, log recovery.LogConfig, res recovery.Result, counters map[string]int64, before, after child.Memory) string {
	c := res.Counters
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
	case c.IteratorsOpened == 0:
		verdict = fmt.Sprintf("no leak: %s opened no deep iterator (RSS − heap in use %s, goroutines %+d).", what, sizeText(outside), goroutines)
	default:
		verdict = fmt.Sprintf("no leak: %s opened %d deep iterators and closed them all (RSS − heap in use %s, goroutines %+d).",
			what, c.IteratorsOpened, sizeText(outside), goroutines)
	}
	if jvm := counters["jvm_bytes_per_open_stream"]; jvm > 0 && open > 0 {
		verdict += fmt.Sprintf(" Per open stream: %s resident in the model, %s in a JVM (measured by GzipLeak.java on JDK 17).", sizeText(counters["offheap_resident_bytes"]/open), sizeText(jvm))
	}
	for _, p := range res.Partitions {
		for _, s := range p.Recovered {
			if s.Corruption != nil {
				verdict += fmt.Sprintf(" %s truncated at byte %d (log end offset %d, %d later segments deleted): %s.",
					p.Name, s.Corruption.Position, p.LogEndOffset, len(p.Deleted), s.Corruption.Reason)
			}
		}
	}
	return "verdict: " + verdict
}

// damageVerdict says why the variant saw the -corrupt-batch damage or not.
func damageVerdict(v recovery.Variant, log recovery.LogConfig, d *recovery.DamageReport, res recovery.Result) string {
	if d == nil {
		return ""
	}
	seen := false
	for _, p := range res.Partitions {
		for _, s := range p.Recovered {
			seen = seen || s.Corruption != nil && s.Path == d.Segment && s.Corruption.Position == d.Position
		}
	}
	what := fmt.Sprintf(" The damaged batch at byte %d (offset %d)", d.Position, d.FirstOffset)
	switch {
	case seen && v == recovery.VariantDrain:
		return what + " was seen: 0.10.0.1 reads every indexed wrapper to its end, where gzip checks its trailer."
	case seen:
		return what + " was seen: the deep iterator read it to its end (a v1 wrapper is read eagerly)."
	case v == recovery.VariantHeader:
		return what + " was not seen: modern Kafka takes offsets from headers and decompresses nothing during recovery."
	case !d.Indexed:
		return what + " was not seen: it gets no index entry, so no deep iterator is opened on it."
	case log.Format == recovery.FormatV0 || log.Format == recovery.FormatV2:
		return what + " was not seen: this variant reads only the first record of the batch."
	}
	return what + " was not seen."
}

// boolCount is 1 for true, 0 for false.
func boolCount(b bool) int64 {
	if b {
		return 1
	}
	return 0
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
