package analyze

// InflaterNativeBytes is the resident native memory one java.util.zip.Inflater
// of an open GZIPInputStream holds: zlib's inflate state and the touched part of
// its window, which the JDK allocates with malloc, outside the Java heap and
// outside Native Memory Tracking. It is the resident-set growth per stream left
// open after its first inner message that recovery/testdata/jvm/GzipLeak.java
// measured on OpenJDK 17.0.15 (the Java heap pre-touched, so that the growth is
// native only): the figure the KAFKA-3933 reproduction is calibrated on
// (recovery.JVMGzipStreamBytes; a test of cmd/leakui checks that the two agree).
// The analyses of class histograms (analyze/jvm) and of heap dumps
// (analyze/hprof) cost an Inflater at it.
const InflaterNativeBytes = 12_448

// DeflaterZlibBytes is what zlib allocates for one deflate stream at the JDK's
// settings (windowBits 15, memLevel 8): (1 << (windowBits+2)) + (1 << (memLevel+9))
// bytes, as zlib's zconf.h states; it becomes resident as the stream is used, so
// it is what a Deflater holds at most.
const DeflaterZlibBytes = 256 << 10

// ThreadStackBytes is the stack HotSpot reserves for a Java thread on 64-bit
// Linux (x86_64 and aarch64) unless -Xss or the program says otherwise: its
// ThreadStackSize of 1024 KiB (`java -XX:+PrintFlagsFinal -version`). It is
// address space reserved; what a thread's stack holds resident is what it
// touched.
const ThreadStackBytes = 1 << 20
