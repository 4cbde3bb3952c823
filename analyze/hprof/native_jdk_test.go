package hprof

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze"
)

// TestNativeHoldersOnTheJDK reads the native memory section of a real JVM's
// dump taken with `jcmd GC.heap_dump -all` (testdata/NativeHolders.java):
// 256 MiB of direct buffers, shown to the byte from their capacity fields as
// the JVM's buffer pool counts them (BufferPoolMXBean), with their slices and duplicates owning nothing; a mapped file; 20,000
// GZIPInputStreams, a quarter referenced and the rest dropped unclosed, which
// only the Cleaner's queue reaches, costed within ±25% of the resident memory
// the JVM gained opening them; open and ended Deflaters; a thread with the
// stack size its program asked for. The streams and the buffers are suspects,
// each with its sentence.
func TestNativeHoldersOnTheJDK(t *testing.T) {
	const streams, buffers, bufferMiB = 20_000, 64, 4
	mapped := filepath.Join(t.TempDir(), "mapped.bin")
	jh := runAllJava(t, "NativeHolders", false,
		[]string{"-Xms512m", "-Xmx512m", "-Xmn400m", "-XX:+AlwaysPreTouch", "-XX:+UseSerialGC", "-XX:MaxDirectMemorySize=512m"},
		strconv.Itoa(streams), strconv.Itoa(buffers), strconv.Itoa(bufferMiB), mapped)
	// What the JVM measured: its resident set's growth per stream, and its
	// buffer pools' counts and capacities.
	raw, err := os.ReadFile(mapped + ".measured")
	if err != nil {
		t.Fatal(err)
	}
	jvm := map[string][2]int64{}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		f := strings.Fields(line)
		if len(f) > 3 { // "mapped - 'non-volatile memory'", the pool of persistent memory
			continue
		}
		var v [2]int64
		for i := 1; i < len(f) && i <= 2; i++ {
			if v[i-1], err = strconv.ParseInt(f[i], 10, 64); err != nil {
				t.Fatalf("%s: %v", mapped+".measured", err)
			}
		}
		jvm[f[0]] = v
	}
	measured, direct, mappedPool := jvm["rss_per_stream"][0], jvm["direct"], jvm["mapped"]
	if direct[1] < buffers*bufferMiB<<20 || mappedPool[1] != 1<<20 {
		t.Fatalf("the JVM's buffer pools: %s", raw)
	}
	if gcs := jvm["gcs_after_drop"][0]; gcs != 0 {
		t.Fatalf("%d GCs ran after the streams were dropped, which lets the Cleaner end them: the program's young generation is too small", gcs)
	}
	h, err := Open(jh.Dump, OpenOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	rep, err := h.NewReport(ReportOptions{Native: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	nm := rep.Native

	d := nm.DirectBuffers
	// The JDK's own direct buffers (its cache of temporary buffers for
	// channel I/O) besides the program's.
	if d.Count != direct[0] || d.Bytes != direct[1] || d.Reach.Strong.Count != d.Count {
		t.Errorf("direct buffers %+v, want the JVM's direct pool: %d buffers of %d bytes in all, strongly reachable", d, direct[0], direct[1])
	}
	if nm.BufferViews != 2*buffers {
		t.Errorf("%d buffer views, want %d (a slice and a duplicate of each buffer)", nm.BufferViews, 2*buffers)
	}
	if m := nm.MappedBuffers; m.Count != mappedPool[0] || m.Bytes != mappedPool[1] || m.Reach.Strong.Count != 1 {
		t.Errorf("mapped buffers %+v, want one of 1 MiB", m)
	}

	in := nm.Inflaters
	held := int64(streams / 4)
	if in.Count != streams || in.Reach.Strong.Count != held || in.Reach.PendingCleanup.Count != streams-held ||
		in.Bytes != streams*analyze.InflaterNativeBytes {
		t.Errorf("Inflaters %+v, want %d open, %d strongly reachable, the others only from the Cleaner's queue", in, streams, held)
	}
	if ratio := float64(in.PerObject) / float64(measured); math.Abs(ratio-1) > 0.25 {
		t.Errorf("each stream costed at %d bytes, the JVM's resident set grew by %d per stream (%.2f×)", in.PerObject, measured, ratio)
	} else {
		t.Logf("each stream costed at %d bytes, the JVM's resident set grew by %d per stream (%.2f×)", in.PerObject, measured, ratio)
	}
	if nm.InflatersEnded != 10 {
		t.Errorf("%d ended Inflaters, want the 10 closed streams kept", nm.InflatersEnded)
	}
	if df := nm.Deflaters; df.Count != 8 || df.Reach.Strong.Count != 8 || df.Bytes != 8*analyze.DeflaterZlibBytes || nm.DeflatersEnded < 4 {
		t.Errorf("Deflaters %+v and %d ended, want 8 open and 4 ended", df, nm.DeflatersEnded)
	}

	th := nm.Threads
	if th.Stated != 1 || th.StatedBytes != 8<<20 || th.Threads < 2 || th.DefaultBytes != (th.Threads-1)*analyze.ThreadStackBytes {
		t.Errorf("thread stacks %+v, want one thread stating 8 MiB, the others at the default", th)
	}
	if nm.Bytes != d.Bytes+nm.MappedBuffers.Bytes+in.Bytes+nm.Deflaters.Bytes+th.Bytes {
		t.Errorf("native bytes %d are not the sum of the holders'", nm.Bytes)
	}

	if len(nm.Suspects) != 2 {
		t.Fatalf("native suspects %+v, want the direct buffers and the Inflaters", nm.Suspects)
	}
	wantBuffers := analyze.FormatCount(direct[0]) + " `java.nio.DirectByteBuffer`s ≈ " + analyze.FormatBytes(direct[1]) + " of native memory, strongly reachable."
	wantStreams := "20,000 unclosed `java.util.zip.Inflater`s ≈ 237.4 MB of native memory at 12.2 kB each, 5,000 strongly reachable, 15,000 reachable only from finalizer/cleaner queues (KAFKA-3933-shaped)."
	if s := nm.Suspects[0].Sentence; s != wantBuffers {
		t.Errorf("first suspect %q, want %q", s, wantBuffers)
	}
	if s := nm.Suspects[1].Sentence; s != wantStreams {
		t.Errorf("second suspect %q, want %q", s, wantStreams)
	}
}
