package lab

import (
	"fmt"
	"math"
)

// decide gives a finished run its verdict and a one-sentence reason with the
// numbers, from the workload's own counters and the memory it reported at its first
// and last step.
func decide(spec Spec, p Progress) (verdict, reason string) {
	if len(p.Points) == 0 {
		return "", "the run reported no progress"
	}
	first, last := p.Points[0], p.Points[len(p.Points)-1]
	c := p.Counters
	switch spec.Workload {
	case WorkloadCheckpoint:
		starts, stops := c["consumer_starts"], c["consumer_stops"]
		open := starts - stops
		if open > 0 {
			return VerdictLeak, fmt.Sprintf("%d consumers started and %d stopped: %d were never closed, and goroutines went from %d to %d (%+d, %.1f per leaked consumer).",
				starts, stops, open, first.Goroutines, last.Goroutines, last.Goroutines-first.Goroutines, perEach(last.Goroutines-first.Goroutines, open))
		}
		refused := ""
		if n := c["refused_registrations"]; n > 0 {
			refused = fmt.Sprintf(" The consumer refused %d registrations after it had started, as upstream's KafkaSystemConsumer does.", n)
		}
		return VerdictNoLeak, fmt.Sprintf("%d consumers started and %d stopped: none left open; goroutines %d at the first step and %d at the last.%s",
			starts, stops, first.Goroutines, last.Goroutines, refused)
	case WorkloadRecovery:
		if spec.Variant == VariantJVM {
			streams, grown := c["jvm_streams"], c["jvm_rss_after"]-c["jvm_rss_before"]
			s := fmt.Sprintf("In a real JVM (GzipLeak.java, the JDK on this server), %d GZIPInputStreams left open as 0.10.0.0 leaves its deep iterators grew the resident set by %s, %s per stream; Native Memory Tracking saw %s of it (zlib's malloc is not tracked); %s stayed resident after the streams were collected. These figures came from the JVM.",
				streams, bytesText(grown), bytesText(c["jvm_bytes_per_open_stream"]), bytesText(c["jvm_nmt_committed_after"]-c["jvm_nmt_committed_before"]), bytesText(c["jvm_rss_collected"]-c["jvm_rss_before"]))
			if streams > 0 && grown > streams*4096 {
				return VerdictLeak, s
			}
			return VerdictNoLeak, s
		}
		opened, closed := c["iterators_opened"], c["iterators_closed"]
		open := opened - closed
		goroutines := last.Goroutines - first.Goroutines
		offHeap := (last.RSS - last.HeapInuse) - (first.RSS - first.HeapInuse)
		heap := last.HeapInuse - first.HeapInuse
		retained := c["offheap_bytes"] > 0 || goroutines >= max(open/2, 2) || offHeap > 16<<20
		extra := recoveryNotes(c, open)
		switch {
		case open > 0 && retained:
			holding := ""
			if r := c["offheap_resident_bytes"]; r > 0 {
				holding = fmt.Sprintf(", holding %s resident outside the Go heap (counted by mincore)", bytesText(r))
			}
			return VerdictLeak, fmt.Sprintf("%d deep iterators opened and %d closed: %d left open%s; RSS − heap in use grew by %s while the heap changed by %s, and %+d goroutines.%s",
				opened, closed, open, holding, bytesText(offHeap), bytesText(heap), goroutines, extra)
		case open > 0:
			return VerdictNoLeak, fmt.Sprintf("%d deep iterators were never closed, but nothing stayed allocated: goroutines %+d, RSS − heap %s; the %s readers are plain garbage for the GC.%s",
				open, goroutines, bytesText(offHeap), spec.Codec, extra)
		}
		return VerdictNoLeak, fmt.Sprintf("%d deep iterators opened and %d closed: none left open; goroutines %+d, RSS − heap in use %s.%s",
			opened, closed, goroutines, bytesText(offHeap), extra)
	}
	return "", ""
}

// recoveryNotes adds what a recovery run's counters say beyond the leak: the
// figure that came from the JVM beside the model's, and a truncation.
func recoveryNotes(c map[string]int64, open int64) string {
	var s string
	if jvm := c["jvm_bytes_per_open_stream"]; jvm > 0 && open > 0 {
		s += fmt.Sprintf(" Per open stream: %s resident in this run (the Go model, counted by mincore); %s in a JVM (the figure from the JVM: GzipLeak.java, RSS per unclosed GZIPInputStream on JDK 17).",
			bytesText(c["offheap_resident_bytes"]/open), bytesText(jvm))
	}
	if c["truncations"] > 0 {
		s += fmt.Sprintf(" Recovery truncated %d segment(s), cutting %s and deleting %d later segment(s); log end offsets %d.",
			c["truncations"], bytesText(c["truncated_bytes"]), c["segments_deleted"], c["log_end_offsets"])
	}
	if _, damaged := c["corrupt_batch_offset"]; damaged && c["truncations"] == 0 {
		s += fmt.Sprintf(" The damaged batch at offset %d was not seen: this variant never read that payload to its end.", c["corrupt_batch_offset"])
	}
	return s
}

func perEach(n, of int64) float64 {
	if of == 0 {
		return 0
	}
	return math.Round(float64(n)/float64(of)*10) / 10
}

// bytesText renders a signed byte count in binary units.
func bytesText(n int64) string {
	sign := ""
	if n < 0 {
		sign, n = "-", -n
	}
	v, u := float64(n), "B"
	for _, unit := range []string{"kB", "MB", "GB", "TB"} {
		if v < 1024 {
			break
		}
		v /= 1024
		u = unit
	}
	if u == "B" {
		return fmt.Sprintf("%s%d B", sign, n)
	}
	return fmt.Sprintf("%s%.1f %s", sign, v, u)
}
