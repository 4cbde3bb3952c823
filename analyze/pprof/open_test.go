package pprof

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/fixtures"
)

// streamEveryFile makes Open stream every profile.proto file, whatever its
// size, for the rest of the test.
func streamEveryFile(t *testing.T) {
	old := streamAbove
	streamAbove = 0
	t.Cleanup(func() { streamAbove = old })
}

// TestOpenChoosesThePath: Open reads a large profile.proto file again for each
// report (streamed), decodes smaller ones, legacy files and readers into
// memory, keeps a reader's bytes only where the reference parser needs them,
// and every path prints the same -top text and the same top table.
func TestOpenChoosesThePath(t *testing.T) {
	for _, path := range fixturesGlob(t, "pprof") {
		p, err := Open(File(path), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if p.stream != nil { // the fixtures decompress to less than 8 MiB
			t.Errorf("%s is streamed", filepath.Base(path))
		}
	}
	streamEveryFile(t)
	streamed, legacy := 0, 0
	for _, path := range fixturesGlob(t, "pprof") {
		name := filepath.Base(path)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		fromFile, err := Open(File(path), Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		fromReader, err := Open(Reader(bytes.NewReader(data)), Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		proto := fromReader.Format == "profile.proto" && fromReader.meta.dropFrames == ""
		switch {
		case proto && (fromFile.stream == nil || fromFile.graph != nil):
			t.Errorf("%s: a profile.proto file is not streamed", name)
		case !proto && (fromFile.stream != nil || fromFile.graph == nil || fromFile.reopen == nil || fromFile.data != nil):
			t.Errorf("%s (%s): a file that is not streamed is held in memory and read again by path", name, fromFile.Format)
		case fromReader.stream != nil || fromReader.graph == nil:
			t.Errorf("%s: a reader's profile is not in memory", name)
		case (fromReader.data != nil) == fromReader.textExact():
			t.Errorf("%s: the reader's bytes kept %v; its text needs them %v", name, fromReader.data != nil, !fromReader.textExact())
		}
		if proto {
			streamed++
		} else {
			legacy++
		}
		si := fromReader.DefaultSampleIndex()
		o := TextOptions{SampleIndex: si, NodeFraction: DefaultNodeFraction, EdgeFraction: DefaultEdgeFraction}
		var a, b bytes.Buffer
		if err := fromFile.WriteTop(&a, o); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := fromReader.WriteTop(&b, o); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if a.String() != b.String() {
			t.Errorf("%s: the file's text\n%s\nthe reader's\n%s", name, a.String(), b.String())
		}
		if ta, tb := mustTop(t, fromFile, si), mustTop(t, fromReader, si); !sameTop(ta, tb) {
			t.Errorf("%s: the file's top table differs from the reader's", name)
		}
		if st, rt := fromFile.SampleTypes(), fromReader.SampleTypes(); len(st) != len(rt) || st[si] != rt[si] || fromFile.Samples() != fromReader.Samples() {
			t.Errorf("%s: sample types %v, %d samples; the reader's %v, %d", name, st, fromFile.Samples(), rt, fromReader.Samples())
		}
		fromFile.Close()
	}
	if streamed < 8 || legacy < 4 {
		t.Errorf("%d fixtures streamed, %d not; want both kinds", streamed, legacy)
	}
}

// TestOpenAPipeKeepsItsBytes: a file that cannot be read twice (a named pipe,
// as <(zcat …) gives) is read once into memory with its bytes, so that the
// reports of pprof's parser still have them.
func TestOpenAPipeKeepsItsBytes(t *testing.T) {
	src := fixtures.Path(t, "pprof", "parca-self-heap-t0-1644509272.pb.gz")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(t.TempDir(), "profile")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write(data)
		f.Close()
	}()
	p, err := Open(File(fifo), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.stream != nil || p.data == nil || p.reopen != nil {
		t.Fatalf("a pipe: streamed %v, bytes kept %v", p.stream != nil, p.data != nil)
	}
	l, err := p.Labels(TextOptions{SampleIndex: p.DefaultSampleIndex()})
	if err != nil || len(l.Keys) == 0 {
		t.Errorf("labels of a pipe's profile: %+v, %v", l, err)
	}
}

// TestReportsThatNeedTheBytesAgain: a reader's profile whose text leakui prints
// itself has no bytes for pprof's parser; its labels and call graph are
// refused with ErrInvalidParameter saying why, and a file's are read again.
func TestReportsThatNeedTheBytesAgain(t *testing.T) {
	path := fixtures.Path(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Open(Reader(bytes.NewReader(data)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := TextOptions{SampleIndex: p.DefaultSampleIndex()}
	if _, err := p.Labels(o); !errors.Is(err, analyze.ErrInvalidParameter) || !errors.Is(err, errNeedsBytes) {
		t.Errorf("labels of a reader's profile: %v", err)
	}
	if _, err := p.Graph(o); !errors.Is(err, errNeedsBytes) {
		t.Errorf("the call graph of a reader's profile: %v", err)
	}
	f, err := Open(File(path), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Labels(o); err != nil {
		t.Errorf("labels of a file's profile: %v", err)
	}
}

// TestStreamedProfileHoldsItsTablesUntilClose: a streamed profile's tables
// stay charged to Open's budget until Close; a profile held in memory keeps
// nothing charged.
func TestStreamedProfileHoldsItsTablesUntilClose(t *testing.T) {
	streamEveryFile(t)
	path := fixtures.Path(t, "pprof", "erigon-integration-heap.pb.gz")
	b := analyze.NewBudget(1 << 30)
	p, err := Open(File(path), Options{Budget: b})
	if err != nil {
		t.Fatal(err)
	}
	if p.stream == nil || b.Used() <= 0 {
		t.Fatalf("streamed %v, %d bytes charged", p.stream != nil, b.Used())
	}
	if _, err := p.Top(p.DefaultSampleIndex()); err != nil {
		t.Fatal(err)
	}
	p.Close()
	if b.Used() != 0 {
		t.Errorf("%d bytes charged after Close", b.Used())
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := Open(Reader(f), Options{Budget: b}); err != nil || b.Used() != 0 {
		t.Errorf("a profile in memory: %v, %d bytes charged", err, b.Used())
	}
}

// TestOpenStreamsALargeFile: the benchmark profile (10.8 MB decompressed) is
// streamed from a file: its tables held, a tenth of what it holds decoded.
func TestOpenStreamsALargeFile(t *testing.T) {
	if raceEnabled {
		t.Skip("the benchmark profile is slow to make under the race detector")
	}
	path := filepath.Join(t.TempDir(), "bench.pb.gz")
	if err := os.WriteFile(path, benchProfile(), 0o600); err != nil {
		t.Fatal(err)
	}
	b := analyze.NewBudget(1 << 30)
	p, err := Open(File(path), Options{Budget: b})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	q, err := Open(Reader(bytes.NewReader(benchProfile())), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.stream == nil || b.Used() == 0 || b.Used() > q.MemSize()/10 {
		t.Errorf("streamed %v, %d bytes held; decoded it holds %d", p.stream != nil, b.Used(), q.MemSize())
	}
}

// TestFlameTreeOfAStreamedProfile: a streamed profile's flame tree, built from
// a copy of its samples charged to the budget, is the tree of the same profile
// held in memory.
func TestFlameTreeOfAStreamedProfile(t *testing.T) {
	streamEveryFile(t)
	path := fixtures.Path(t, "pprof", "flameshow-heap.pb.gz")
	p, err := Open(File(path), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	q := loadFile(t, path)
	si := q.DefaultSampleIndex()
	b := analyze.NewBudget(1 << 30)
	got, err := p.FlameTree(si, b)
	if err != nil {
		t.Fatal(err)
	}
	want, err := q.FlameTree(si, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.stream == nil || got.Total() != want.Total() || got.Len() != want.Len() || b.Used() != 0 {
		t.Errorf("streamed %v: total %d, %d nodes, %d bytes left charged; in memory %d, %d", p.stream != nil, got.Total(), got.Len(), b.Used(), want.Total(), want.Len())
	}
	if d := treeDifference(got, want); d != "" {
		t.Error(d)
	}
}
