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
