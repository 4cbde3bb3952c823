package jvm

// The report kinds of native memory tracking: one report, and a diff of two.
const (
	kindJavaNMT     = "jvm-nmt"
	kindJavaNMTDiff = "jvm-nmt-diff"
)

// The report kinds of thread dumps: one dump, and a diff of two.
const (
	kindJavaThreads     = "jvm-threads"
	kindJavaThreadsDiff = "jvm-threads-diff"
)

// The report kinds of class histograms: one histogram, and a diff of two or
// more, first → last.
const (
	kindJavaHistogram     = "jvm-histogram"
	kindJavaHistogramDiff = "jvm-histogram-diff"
)
