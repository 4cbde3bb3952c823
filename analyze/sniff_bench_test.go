package analyze

import (
	"bytes"
	"testing"

	"github.com/leakui/leakui/internal/fixtures"
)

// BenchmarkSniffContainerLog measures how fast Sniff reads a log with no dump in it
// to its end, bare and with kubectl prefixes: the cost an upload of a log pays for
// the search for a dump further in.
func BenchmarkSniffContainerLog(b *testing.B) {
	for name, wrap := range map[string]func([]byte) []byte{"bare": func(x []byte) []byte { return x }, "kubectl": fixtures.Kubectl} {
		data := wrap(fixtures.ContainerLog(16 << 20))
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				rc, _, err := Decompress(bytes.NewReader(data), 0)
				if err != nil {
					b.Fatal(err)
				}
				if d, err := Sniff(rc); err != nil || d.Kind != KindLog {
					b.Fatal(d, err)
				}
			}
		})
	}
}
