// Package jvm reads the JVM's text dumps (class histograms, thread dumps and native memory tracking summaries), compares them and reports on them.
//
// It owns the class histograms with their suspects above the floor of growth; the
// thread dumps and their groups; the native memory summaries, whose growth NMT
// tracks is named by its category (TrackedCause); GC.heap_info (ParseHeapInfo);
// the process, JVM version and program each file came from and the warnings of
// diffs across them (origin.go); and the native memory a JVM does not track,
// judged from snapshots of its resident set, NMT, heap and -all histogram, with
// the java.util.zip.Inflater objects costed at the JVM-measured
// InflaterNativeBytes (AnalyzeNative, native.go).
package jvm
