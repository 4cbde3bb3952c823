package jvm

// The report kinds of native memory tracking: one report, and a diff of two.
const (
	kindJavaNMT     = "jvm-nmt"
	kindJavaNMTDiff = "jvm-nmt-diff"
)
