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
		opened, closed := c["iterators_opened"], c["iterators_closed"]
		open := opened - closed
		goroutines := last.Goroutines - first.Goroutines
		offHeap := (last.RSS - last.HeapInuse) - (first.RSS - first.HeapInuse)
		heap := last.HeapInuse - first.HeapInuse
		retained := c["offheap_bytes"] > 0 || goroutines >= max(open/2, 2) || offHeap > 16<<20
		switch {
		case open > 0 && retained:
			return VerdictLeak, fmt.Sprintf("%d deep iterators opened and %d closed: %d left open, holding %s outside the Go heap (RSS − heap in use grew by %s while the heap changed by %s) and %+d goroutines.",
				opened, closed, open, bytesText(c["offheap_bytes"]), bytesText(offHeap), bytesText(heap), goroutines)
		case open > 0:
			return VerdictNoLeak, fmt.Sprintf("%d deep iterators were never closed, but nothing stayed allocated: goroutines %+d, RSS − heap %s; the %s readers are plain garbage for the GC.",
				open, goroutines, bytesText(offHeap), spec.Codec)
		}
		return VerdictNoLeak, fmt.Sprintf("%d deep iterators opened and %d closed: none left open; goroutines %+d, RSS − heap in use %s.",
			opened, closed, goroutines, bytesText(offHeap))
	}
	return "", ""
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
