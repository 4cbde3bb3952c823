package hprof

import (
	"bytes"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/hostile"
)

// TestNativeHolders reads the native memory section of a dump of JDK 8's
// Inflaters: half held by a list, half only by the finalizer queue, every
// stream open (its ZStreamRef's address set). Each is costed at the
// JVM-measured bytes per stream, split by how it is reached; twenty thousand
// of them are a suspect.
func TestNativeHolders(t *testing.T) {
	for _, streams := range []int{2_000, 20_000} {
		var dump bytes.Buffer
		if err := hostile.NativeHolderDump(&dump, streams, 64); err != nil {
			t.Fatal(err)
		}
		h, err := Parse(bytes.NewReader(dump.Bytes()), int64(dump.Len()), Options{})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := h.NewReport(ReportOptions{Native: true}, nil)
		h.Close()
		if err != nil {
			t.Fatal(err)
		}
		nm := rep.Native
		in := nm.Inflaters
		held, finalized := int64(streams/2), int64(streams-streams/2)
		if in.Count != int64(streams) || in.Bytes != int64(streams)*analyze.InflaterNativeBytes || in.PerObject != analyze.InflaterNativeBytes ||
			in.Reach.Strong.Count != held || in.Reach.PendingCleanup.Count != finalized || in.Reach.Weak.Count != 0 || in.Reach.Unreachable.Count != 0 {
			t.Fatalf("%d streams: Inflaters %+v", streams, in)
		}
		if nm.InflatersEnded != 0 || nm.Bytes != in.Bytes {
			t.Fatalf("%d streams: %d ended, %d bytes in all", streams, nm.InflatersEnded, nm.Bytes)
		}
		if streams < 20_000 {
			if len(nm.Suspects) != 0 {
				t.Fatalf("%d streams (%s) are a suspect: %+v", streams, analyze.FormatBytes(in.Bytes), nm.Suspects)
			}
			continue
		}
		if len(nm.Suspects) != 1 {
			t.Fatalf("%d streams: suspects %+v", streams, nm.Suspects)
		}
		want := "20,000 unclosed `java.util.zip.Inflater`s ≈ 237.4 MB of native memory at 12.2 kB each, 10,000 strongly reachable, 10,000 reachable only from finalizer/cleaner queues."
		if s := nm.Suspects[0]; s.Sentence != want || s.Count != 20_000 {
			t.Fatalf("the suspect: %+v\nwant the sentence %q", s, want)
		}
		if strings.Contains(nm.Suspects[0].Sentence, "KAFKA-3933") {
			t.Fatal("half of the streams strongly held is not KAFKA-3933's shape")
		}
	}
}
