package view

// CapturePage is the page of one or more leakui capture bundles of one process:
// the verdict, the key figures, each capture's memory, what NMT saw change, and
// every step of every bundle with its time and result.
type CapturePage struct {
	Header JVMHeader
	// Cause is the verdict's cause ("untracked-inflaters", "thread-stacks", …),
	// empty when nothing leaks.
	Cause   string
	Figures []JVMFigure
	// Formula says how the untracked native growth is computed, with the numbers.
	Formula string
	JVM     []CaptureJVMRow
	Changes []JVMNMTChangeRow
	Go      []CaptureGoRow
	// Series are the series analyses' sentences of a Go capture.
	Series  []Pair
	Bundles []CaptureBundle
}

// CaptureJVMRow is one JVM capture's memory.
type CaptureJVMRow struct {
	Number                                int
	Taken, RSS, Tracked, Heap, Untracked  string
	Inflaters, Deflaters, Direct, Threads string
	UntrackedGrew                         bool
}

// CaptureGoRow is one snapshot of a Go capture.
type CaptureGoRow struct {
	Number                                    int
	Taken, HeapInuse, HeapObjects, Goroutines string
	Leaked, HeapSys, Sys, NumGC               string
}

// CaptureBundle is one bundle's manifest.
type CaptureBundle struct {
	Title string
	Meta  []Pair
	Steps []CaptureStep
}

// CaptureStep is one step of a bundle.
type CaptureStep struct {
	Name, Command, Started, Took, Size, Error, Hint string
}
