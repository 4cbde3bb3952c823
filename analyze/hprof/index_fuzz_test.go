package hprof

import (
	"bytes"
	"errors"
	"flag"
	"testing"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/hostile"
)

// FuzzOpenIndex reads arbitrary bytes as a heap dump index, seeded with the index
// of a real dump (the JDK's, of TestDominatorsOfARealDumpByRemoval's program),
// its header alone, and the index of a chain's report (with its suspect's path)
// in versions 2 and 1: OpenIndex and the reads of the first nodes and of the
// paths never panic, fail only with ErrMalformed (or ErrInvalidParameter for a
// node the index does not have), and OpenIndex allocates no more than the
// input's size.
func FuzzOpenIndex(f *testing.F) {
	// Fuzzing workers get their inputs from the coordinator, and may be killed
	// before a test's cleanup would stop the JVM: only the coordinator (or go test
	// without -fuzz) runs the JDK for the seed.
	if !fuzzWorker() {
		data := writeIndex(f, smallDumpHeap(f))
		f.Add(data)
		f.Add(data[:indexHeaderSize])
		var dump bytes.Buffer
		if err := hostile.ChainDump(&dump, 50, false, false); err != nil {
			f.Fatal(err)
		}
		h, err := Parse(bytes.NewReader(dump.Bytes()), int64(dump.Len()), Options{})
		if err != nil {
			f.Fatal(err)
		}
		if _, err := h.NewReport(ReportOptions{}, nil); err != nil {
			f.Fatal(err)
		}
		chain := writeIndex(f, h)
		f.Add(chain)
		x, err := OpenIndex(bytes.NewReader(chain), int64(len(chain)))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(asVersion1(f, x, chain))
	}
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

// fuzzWorker tells whether this process is a fuzzing worker (go test -fuzz starts
// them with -test.fuzzworker).
func fuzzWorker() bool {
	w := flag.Lookup("test.fuzzworker")
	return w != nil && w.Value.String() == "true"
}
