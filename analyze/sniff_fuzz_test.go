package analyze

import (
	"bytes"
	"testing"
)

// FuzzDetectKind checks that kind detection never panics and is stable under
// appending: it looks at a bounded prefix only.
func FuzzDetectKind(f *testing.F) {
	f.Add([]byte("goroutine 1 [running]:\nmain.main()\n"))
	f.Add([]byte("\x1f\x8b\x08"))
	f.Add([]byte("heap profile: 1: 1 [1: 1] @ heap/1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := DetectKind(data)
		if d.Kind == "" {
			t.Fatal("empty kind")
		}
		if len(data) >= SniffSize {
			if again := DetectKind(append(data[:SniffSize:SniffSize], 'x')); again != d {
				t.Fatalf("detection depends on bytes after the sniffed prefix: %v vs %v", d, again)
			}
		}
	})
}

// FuzzSniff runs the upload's detection over arbitrary input (decompressed and
// transcoded under a small cap): it never panics or fails, and a dump found past
// the head starts within the input.
func FuzzSniff(f *testing.F) {
	f.Add([]byte("INFO a\nSIGQUIT: quit\nPC=0x1 m=0\n\ngoroutine 1 [running]:\nmain.main()\n"))
	f.Add([]byte("2024-05-01T10:00:00Z x\n2024-05-01T10:00:00Z Full thread dump\n2024-05-01T10:00:00Z \"a\" #1 prio=5 tid=0x1\n"))
	f.Add([]byte("\xff\xfeS\x00I\x00G\x00"))
	const limit = 1 << 20
	f.Fuzz(func(t *testing.T, data []byte) {
		rc, _, err := Decompress(bytes.NewReader(data), limit)
		if err != nil {
			return
		}
		defer rc.Close()
		d, err := Sniff(rc)
		if err != nil {
			return
		}
		if d.Kind == "" || d.Skipped < 0 || d.Skipped > limit || d.SkippedLines < 0 {
			t.Fatalf("detection %+v", d)
		}
	})
}
