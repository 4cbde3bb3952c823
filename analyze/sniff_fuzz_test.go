package analyze

import "testing"

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
