package analyze

// Kind is what an input is, as detected from its content.
type Kind string

// The kinds leakui recognizes.
const (
	// KindProfile is any profile `go tool pprof` reads: profile.proto (gzipped or not),
	// the legacy text heap, growth and threadcreate formats and the legacy binary CPU
	// format.
	KindProfile Kind = "profile"
	// KindGoroutines is a Go goroutine dump in text: /debug/pprof/goroutine?debug=1 or
	// debug=2, a panic or fatal error trace, SIGQUIT output, runtime.Stack(all).
	KindGoroutines Kind = "goroutines"
	// KindLog is any other text: a log file, counted line by line.
	KindLog Kind = "log"
	// KindJVMHistogram is a JVM class histogram (jmap -histo, GC.class_histogram).
	KindJVMHistogram Kind = "jvm-histogram"
	// KindJVMThreads is a JVM thread dump (jstack, Thread.print, SIGQUIT).
	KindJVMThreads Kind = "jvm-threads"
	// KindJVMNMT is a JVM native memory tracking summary (VM.native_memory).
	KindJVMNMT Kind = "jvm-nmt"
	// KindJVMHeapDump is a JVM heap dump in the HPROF format (jcmd GC.heap_dump,
	// jmap -dump, -XX:+HeapDumpOnOutOfMemoryError).
	KindJVMHeapDump Kind = "jvm-heapdump"
	// KindCapture is a leakui capture bundle (`leakui capture jvm|go`): a tar,
	// usually gzip-compressed, whose first file is manifest.json of leakui's
	// format, then the outputs of the steps it lists (see package analyze/capture).
	KindCapture Kind = "capture"
	// KindUnknown is binary data of no kind leakui reads.
	KindUnknown Kind = "unknown"
)

// Description is a short human name for the kind, used in pages and error messages.
func (k Kind) Description() string {
	switch k {
	case KindProfile:
		return "pprof profile"
	case KindGoroutines:
		return "Go goroutine dump"
	case KindLog:
		return "text log"
	case KindJVMHistogram:
		return "JVM class histogram"
	case KindJVMThreads:
		return "JVM thread dump"
	case KindJVMNMT:
		return "JVM native memory summary"
	case KindJVMHeapDump:
		return "JVM heap dump"
	case KindCapture:
		return "leakui capture bundle"
	default:
		return "unrecognized binary data"
	}
}

// Compression is the container format an input was wrapped in.
type Compression string

// The compressions leakui unwraps.
const (
	CompressionNone Compression = ""
	CompressionGzip Compression = "gzip"
	CompressionZstd Compression = "zstd"
)
