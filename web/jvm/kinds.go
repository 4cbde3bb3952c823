package jvm

// The report kinds of native memory tracking: one report, and a diff of two.
const (
	kindJVMNMT     = "jvm-nmt"
	kindJVMNMTDiff = "jvm-nmt-diff"
)

// The report kinds of thread dumps: one dump, and a diff of two.
const (
	kindJVMThreads     = "jvm-threads"
	kindJVMThreadsDiff = "jvm-threads-diff"
)

// The report kinds of class histograms: one histogram, and a diff of two or
// more, first → last.
const (
	kindJVMHistogram     = "jvm-histogram"
	kindJVMHistogramDiff = "jvm-histogram-diff"
)
