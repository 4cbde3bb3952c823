package lab

import (
	"fmt"
	"math"
)

// decide gives a finished run its verdict, a one-sentence reason with the
// numbers, and the further figures (details) a page folds away, from the
// workload's own counters and the memory it reported at its first and last step.
//
// A gzip recovery run has three off-heap figures: the bytes its open iterators
// map (window and state, offheap_bytes), the pages of them resident (mincore,
// offheap_resident_bytes) and the growth of RSS − Go heap in use. The reason
// names one, the resident bytes: what the process really holds, the figure the
// JVM measured per stream. The details label the other two.
func decide(spec Spec, p Progress) (verdict, reason string, details []string) {
	if len(p.Points) == 0 {
		return "", "the run reported no progress", nil
	}
	first, last := p.Points[0], p.Points[len(p.Points)-1]
	c := p.Counters
	switch spec.Workload {
	case WorkloadCheckpoint:
		starts, stops := c["consumer_starts"], c["consumer_stops"]
		open := starts - stops
		if open > 0 {
			return VerdictLeak, fmt.Sprintf("%d consumers started and %d stopped: %d were never closed, and goroutines went from %d to %d (%+d, %.1f per leaked consumer).",
				starts, stops, open, first.Goroutines, last.Goroutines, last.Goroutines-first.Goroutines, perEach(last.Goroutines-first.Goroutines, open)), nil
		}
		refused := ""
		if n := c["refused_registrations"]; n > 0 {
			refused = fmt.Sprintf(" The consumer refused %d registrations after it had started, as upstream's KafkaSystemConsumer does.", n)
		}
		return VerdictNoLeak, fmt.Sprintf("%d consumers started and %d stopped: none left open; goroutines %d at the first step and %d at the last.%s",
			starts, stops, first.Goroutines, last.Goroutines, refused), nil
	case WorkloadRecovery:
		if spec.Variant == VariantJVM {
			streams, grown := c["jvm_streams"], c["jvm_rss_after"]-c["jvm_rss_before"]
			s := fmt.Sprintf("In a real JVM, %d GZIPInputStreams left open grew the resident set by %s (%s per stream).",
				streams, bytesText(grown), bytesText(c["jvm_bytes_per_open_stream"]))
			details = []string{
				"These figures came from the JVM: GzipLeak.java, on the JDK on this server, left its streams open as 0.10.0.0 leaves its deep iterators.",
				fmt.Sprintf("Native Memory Tracking (committed) grew by %s: zlib allocates with malloc, which NMT does not track.", bytesText(c["jvm_nmt_committed_after"]-c["jvm_nmt_committed_before"])),
				fmt.Sprintf("Resident set after the streams were collected: %s above the start (the allocator keeps what zlib freed).", bytesText(c["jvm_rss_collected"]-c["jvm_rss_before"])),
			}
			if streams > 0 && grown > streams*4096 {
				return VerdictLeak, s, details
			}
			return VerdictNoLeak, s, details
		}
		opened, closed := c["iterators_opened"], c["iterators_closed"]
		open := opened - closed
		goroutines := last.Goroutines - first.Goroutines
		offHeap := (last.RSS - last.HeapInuse) - (first.RSS - first.HeapInuse)
		heap := last.HeapInuse - first.HeapInuse
		retained := c["offheap_bytes"] > 0 || goroutines >= max(open/2, 2) || offHeap > 16<<20
		details = recoveryDetails(spec, c, open, goroutines, offHeap, heap)
		switch {
		case open > 0 && retained && c["offheap_resident_bytes"] > 0:
			return VerdictLeak, fmt.Sprintf("%d deep iterators opened and %d closed: the %d left open hold %s resident outside the Go heap.",
				opened, closed, open, bytesText(c["offheap_resident_bytes"])), details
		case open > 0 && retained:
			return VerdictLeak, fmt.Sprintf("%d deep iterators opened and %d closed: %d left open, and goroutines %+d.",
				opened, closed, open, goroutines), details
		case open > 0:
			return VerdictNoLeak, fmt.Sprintf("%d deep iterators were never closed, but nothing stayed allocated: the %s readers are plain garbage for the GC.",
				open, spec.Codec), details
		}
		return VerdictNoLeak, fmt.Sprintf("%d deep iterators opened and %d closed: none left open.", opened, closed), details
	}
	return "", "", nil
}

// recoveryDetails are a recovery run's figures beyond its reason, each labelled
// with what it counts: the off-heap bytes mapped and resident, RSS − heap in
// use, goroutines, the JVM's figure, a truncation.
func recoveryDetails(spec Spec, c map[string]int64, open, goroutines, offHeap, heap int64) []string {
	var d []string
	if r := c["offheap_resident_bytes"]; r > 0 || c["offheap_bytes"] > 0 {
		d = append(d, fmt.Sprintf("Off-heap resident (the verdict's figure): %s, the pages of zlib's inflate windows and states the process really holds, counted by mincore.", bytesText(r)))
		d = append(d, fmt.Sprintf("Off-heap mapped: %s, the windows and states the open iterators reserve (%s each); only the pages written become resident.", bytesText(c["offheap_bytes"]), bytesText(gzipBlockBytes)))
	}
	d = append(d, fmt.Sprintf("RSS − Go heap in use: %s from the first step to the last, while the Go heap changed by %s; the whole process's estimate, noisier than the count above.", bytesText(offHeap), bytesText(heap)))
	d = append(d, fmt.Sprintf("Goroutines: %+d from the first step to the last.", goroutines))
	if jvm := c["jvm_bytes_per_open_stream"]; jvm > 0 && open > 0 {
		d = append(d, fmt.Sprintf("Per open stream: %s resident in this run (the Go model, counted by mincore); %s in a JVM (the figure from the JVM: GzipLeak.java, RSS per unclosed GZIPInputStream on JDK 17).",
			bytesText(c["offheap_resident_bytes"]/open), bytesText(jvm)))
	}
	if c["truncations"] > 0 {
		d = append(d, fmt.Sprintf("Recovery truncated %d segment(s), cutting %s and deleting %d later segment(s); log end offsets %d.",
			c["truncations"], bytesText(c["truncated_bytes"]), c["segments_deleted"], c["log_end_offsets"]))
	}
	if _, damaged := c["corrupt_batch_offset"]; damaged && c["truncations"] == 0 {
		d = append(d, fmt.Sprintf("The damaged batch at offset %d was not seen: this variant never read that payload to its end.", c["corrupt_batch_offset"]))
	}
	return d
}

// gzipBlockBytes is what the gzip model maps per deep iterator: the 32 KiB
// inflate window and 8 KiB of state (recovery.GzipOffheapBytes; lab does not
// import the workloads).
const gzipBlockBytes = 40 << 10

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
