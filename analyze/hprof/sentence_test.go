package hprof

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/internal/fixtures"
)

// What testdata/HeapLeak.java was run with for the dump in testdata/leakshape
// (the inputs): M entries of B bytes in HeapLeak.CACHE, N threads each keeping a
// consumer of C bytes alive through a local.
const (
	heapLeakM = 2000
	heapLeakB = 2048
	heapLeakN = 4
	heapLeakC = 65536
)

// heapLeakReport opens the HeapLeak dump and its jcmd class histogram.
func heapLeakReport(t *testing.T) (*Heap, *Report, *jvm.Histogram) {
	t.Helper()
	h, err := Open(fixtures.Path(t, "leakshape", "heapleak.hprof.gz"), OpenOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	rep, err := h.NewReport(ReportOptions{SuspectShare: 0.1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(fixtures.Path(t, "leakshape", "heapleak-class-histogram.txt"))
	if err != nil {
		t.Fatal(err)
	}
	hist, err := jvm.ParseHistogram(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return h, rep, hist
}

// jcmdInstanceSize is a class's instance size as jcmd's histogram prints it:
// its bytes over its instances.
func jcmdInstanceSize(t *testing.T, hist *jvm.Histogram, name string) int64 {
	t.Helper()
	for _, c := range hist.Classes {
		if c.Name == name && c.Instances > 0 {
			return c.Bytes / c.Instances
		}
	}
	t.Fatalf("jcmd's histogram has no %s", name)
	return 0
}

// TestSuspectSentenceNamesTheAccumulation checks that a static cache's suspect
// gives the size and share of the map's table, where the memory accumulates, not
// of the class whose static field holds the map, and names it by that field with
// what the table holds.
func TestSuspectSentenceNamesTheAccumulation(t *testing.T) {
	h, rep, hist := heapLeakReport(t)
	if len(rep.Suspects) != 1 {
		t.Fatalf("%d suspects, want the cache alone: %+v", len(rep.Suspects), rep.Suspects)
	}
	s := rep.Suspects[0]
	t.Logf("sentence: %s", s.Sentence)

	// What the table holds, from jcmd's instance sizes and the inputs: M nodes,
	// M arrays of B bytes and the keys of 128 and up (Integer caches -128..127),
	// and the table itself, of the next power of two at or above M / 0.75.
	node := jcmdInstanceSize(t, hist, "java.util.HashMap$Node")
	integer := jcmdInstanceSize(t, hist, "java.lang.Integer")
	capacity := int64(16)
	for float64(capacity)*0.75 < heapLeakM {
		capacity *= 2
	}
	table := h.Layout.ArraySize(capacity, h.Layout.Ref)
	want := heapLeakM*(node+h.Layout.ArraySize(heapLeakB, 1)) + (heapLeakM-128)*integer + table
	if s.HolderRetained != want || s.Accumulation.Retained != want {
		t.Errorf("the table retains %d (accumulation %d), want %d × (%d + %d) + %d × %d + %d = %d",
			s.HolderRetained, s.Accumulation.Retained, heapLeakM, node, h.Layout.ArraySize(heapLeakB, 1), heapLeakM-128, integer, table, want)
	}
	if s.Retained <= s.HolderRetained {
		t.Errorf("the class HeapLeak retains %d, not more than its cache's table (%d): the fixture lost its shape", s.Retained, s.HolderRetained)
	}
	if got, wantShare := s.HolderShare, float64(want)/float64(h.TotalRetained()); got != wantShare {
		t.Errorf("holder share %v, want %v", got, wantShare)
	}
	if want := []string{"HeapLeak.CACHE", "java.util.HashMap", "java.util.HashMap$Node[]"}; !slices.Equal(s.Chain, want) {
		t.Errorf("chain %q, want %q", s.Chain, want)
	}
	if s.Element != "java.util.HashMap$Node" || s.ElementCount != heapLeakM || s.Payload != "byte[]" {
		t.Errorf("holds %d %s of %s, want %d java.util.HashMap$Node of byte[]", s.ElementCount, s.Element, s.Payload, heapLeakM)
	}
	wantSentence := "`HeapLeak.CACHE` → `java.util.HashMap` → `java.util.HashMap$Node[]` retains " +
		analyze.FormatBytes(want) + " (84%) in 2,000 `java.util.HashMap$Node` of `byte[]`."
	if s.Sentence != wantSentence {
		t.Errorf("sentence\n%s\nwant\n%s", s.Sentence, wantSentence)
	}
}

// TestThreadRowsCountTheirLocals checks that a thread that keeps a consumer alive
// through a local of its run method alone is shown retaining it, as MAT shows
// it, although the dump roots the local apart from the thread object.
func TestThreadRowsCountTheirLocals(t *testing.T) {
	h, rep, hist := heapLeakReport(t)
	consumer := jcmdInstanceSize(t, hist, "HeapLeak$Consumer") + h.Layout.ArraySize(heapLeakC, 1)
	proxies := 0
	for i, th := range rep.Threads {
		if !strings.HasPrefix(th.Name, "KafkaConsumerProxy-") {
			continue
		}
		proxies++
		if i >= heapLeakN {
			t.Errorf("thread %s is row %d, below threads that keep less alive", th.Name, i)
		}
		if th.Locals != consumer {
			t.Errorf("thread %s keeps %d alone through its locals, want its consumer's %d", th.Name, th.Locals, consumer)
		}
		if own := h.Retained(th.Object.Ordinal); th.Object.Retained != own+consumer {
			t.Errorf("thread %s's row retains %d, want its object's %d and its consumer's %d", th.Name, th.Object.Retained, own, consumer)
		}
	}
	if proxies != heapLeakN {
		t.Errorf("%d KafkaConsumerProxy threads, want %d", proxies, heapLeakN)
	}
	// An object that a thread's local and something else both hold is not the
	// thread's alone: main's locals hold the thread objects, which are roots.
	for _, th := range rep.Threads {
		if th.Name == "main" && th.Locals >= consumer {
			t.Errorf("main keeps %d alone, as much as a consumer: a shared object was counted", th.Locals)
		}
	}
}
