package hprof

import (
	"bytes"
	"errors"
	"testing"

	"github.com/leakui/leakui/analyze"
)

// FuzzOpenIndex reads arbitrary bytes as a heap dump index, seeded with the index
// of a real dump (the JDK's, of TestDominatorsOfARealDumpByRemoval's program) and
// its header alone: OpenIndex and the reads of the first nodes never panic, fail
// only with ErrMalformed (or ErrInvalidParameter for a node the index does not
// have), and OpenIndex allocates no more than the input's size.
func FuzzOpenIndex(f *testing.F) {
	h := smallDumpHeap(f)
	data := writeIndex(f, h)
	f.Add(data)
	f.Add(data[:indexHeaderSize])
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := OpenIndex(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			if !errors.Is(err, analyze.ErrMalformed) {
				t.Fatalf("OpenIndex: %v", err)
			}
			return
		}
		if err := walkIndex(x, 256); err != nil && !errors.Is(err, analyze.ErrMalformed) {
			t.Fatalf("reading the nodes: %v", err)
		}
	})
}
