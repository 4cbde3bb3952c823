package hprof

import (
	"bytes"
	"errors"
	"testing"

	"github.com/leakui/leakui/analyze"
)

// FuzzCheckFraming checks arbitrary bytes' framing: it never panics, every
// failure wraps one of the package's sentinels (so the server answers 4xx), and
// a dump it passes fails once its last byte is cut (the records chain exactly
// to the end of the file).
func FuzzCheckFraming(f *testing.F) {
	end := []byte{tagHeapDumpEnd, 0, 0, 0, 0, 0, 0, 0, 0}
	f.Add(append(loopDump(4), end...))
	f.Add(append(loopDump(8), end...))
	f.Add(loopDump(8))
	f.Add([]byte("JAVA PROFILE 1.0.1\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := CheckFraming(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			if !errors.Is(err, analyze.ErrMalformed) && !errors.Is(err, analyze.ErrUnsupportedKind) && !errors.Is(err, analyze.ErrEmpty) {
				t.Fatalf("an error without a sentinel: %v", err)
			}
			return
		}
		if CheckFraming(bytes.NewReader(data[:len(data)-1]), int64(len(data)-1)) == nil {
			t.Fatalf("the framing of %d bytes passes without its last byte", len(data))
		}
	})
}
