package web

// The report kinds of JVM inputs. One snapshot makes the single kind; two or more
// make the diff kind, first → last.
const (
	kindJavaHistogram     = "jvm-histogram"
	kindJavaHistogramDiff = "jvm-histogram-diff"
)
