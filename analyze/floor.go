package analyze

// A leak suspect is what a page colours red and a CI gate fails on, so its
// statistics are not enough: its growth must also reach a floor, a share of the
// whole it is part of and an absolute amount. The share keeps a steady trickle in a
// large program from being called its leak; the amount keeps a growth of one or two
// objects, or of a few kilobytes, from being called a leak at all (one lambda class
// more in a histogram of another JDK, one goroutine more in a short series). What
// grows below the floor is still listed, as a grower, with the reason.
const (
	// SuspectMinShare is the smallest share of the whole (the largest total of a
	// series, the growth of a histogram's application classes) that a suspect's
	// growth must reach: 0.5%.
	SuspectMinShare = 0.005
	// SuspectMinCount is the smallest growth of a count (goroutines, instances,
	// objects) that makes a suspect.
	SuspectMinCount = 3
	// SuspectMinBytes is the smallest growth in bytes that makes a suspect: 512
	// KiB, the Go heap profiler's average sampling interval
	// (runtime.MemProfileRate), under which a heap profile's growth is the
	// estimate of one sample.
	SuspectMinBytes = 512 << 10
)

// SuspectMinGrowth is the absolute floor of a suspect's growth in a unit:
// SuspectMinBytes for "bytes", SuspectMinCount for counts ("count", "objects" or
// no unit), and 0 for any other unit (time), which only the share bounds.
func SuspectMinGrowth(unit string) int64 {
	switch unit {
	case "bytes":
		return SuspectMinBytes
	case "count", "objects", "":
		return SuspectMinCount
	}
	return 0
}
