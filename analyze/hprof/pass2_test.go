package hprof

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/hostile"
	"go.uber.org/goleak"
)

// smallChunks makes pass 2 read in chunks of at most objects objects or bytes
// bytes of the dump, until the test ends.
func smallChunks(t *testing.T, objects uint32, bytes int64) {
	was, wasBytes := chunkObjects, chunkBytes
	chunkObjects, chunkBytes = objects, bytes
	t.Cleanup(func() { chunkObjects, chunkBytes = was, wasBytes })
}

// danglingDump writes a list of n objects of which every third has a second
// field pointing at no object of the dump, and an array of refs elements of
// which every fifth dangles, both GC roots: the array's references are handed
// over in several batches, and it is noted once as an object with a dangling
// reference.
func danglingDump(n, refs int) func(w io.Writer) error {
	return func(w io.Writer) error {
		const cls, base, gone = 0x1000_0000, 0x8_0000_0000, 0x9_0000_0000
		h := hostile.NewHprofWriter(w, 8)
		h.Class(cls, 0, "java.lang.Object", nil, nil)
		h.Class(cls+8, cls, "java.lang.Class", nil, nil)
		h.StickyClassRoot(cls)
		h.StickyClassRoot(cls + 8)
		h.Class(cls+16, cls, "leak.Node", nil, []hostile.HprofField{hostile.Ref("next"), hostile.Ref("gone")})
		h.Class(cls+24, cls, "java.lang.Object[]", nil, nil)
		for i := range n {
			var next, lost uint64
			if i+1 < n {
				next = base + 8*uint64(i+1)
			}
			if i%3 == 0 {
				lost = gone + 8*uint64(i)
			}
			h.Instance(base+8*uint64(i), cls+16, next, lost)
		}
		h.ObjectArray(base+8*uint64(n), cls+24, refs, func(i int) uint64 {
			if i%5 == 0 {
				return gone + 8*uint64(i)
			}
			return base + 8*uint64(i%n)
		})
		h.GlobalRoot(base)
		h.GlobalRoot(base + 8*uint64(n))
		return h.Close()
	}
}

// analyzed is what an analysis of a dump gives: its report as JSON and its
// index.
type analyzed struct {
	report, index []byte
	chunks        int // read by pass 2
	nameChunks    int // read for the names
	dangling      int64
}

func analyzeDump(t *testing.T, path string, sequential bool) analyzed {
	t.Helper()
	h, err := Open(path, OpenOptions{TempDir: t.TempDir(), Options: Options{sequential: sequential}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	rep, err := h.NewReport(ReportOptions{Native: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	return analyzed{report: js, index: writeIndex(t, h), chunks: h.readChunks, nameChunks: h.nameChunks, dangling: h.Dangling}
}

// TestParallelReferencesSameIndex reads the references and the names of
// real and pathological dumps in many small chunks on a goroutine a core, and
// sorts the dominator tree's rows in two halves, and does it all on the
// calling goroutine alone: the reports and the indexes are the same, byte for
// byte (the fields of the paths are numbered in the same order). The chunks
// start inside heap dump segments, and an array of more references than a
// batch holds is handed over in pieces.
func TestParallelReferencesSameIndex(t *testing.T) {
	smallChunks(t, 101, 4096)
	was := halfFrom
	halfFrom = 2
	t.Cleanup(func() { halfFrom = was })
	jh := runJava(t, "LeakShape", true, []string{"-XX:+UseSerialGC", "-Xmx64m"}, "3", "4096", "30", "10")
	dumps := []hostileShape{
		{name: "LeakShape"},
		{name: "a chain", write: func(w io.Writer) error { return hostile.ChainDump(w, 20_000, false, false) }},
		{name: "a ring dumped last first", write: func(w io.Writer) error { return hostile.ChainDump(w, 20_000, true, true) }},
		{name: "a wide array", write: func(w io.Writer) error { return hostile.WideArrayDump(w, 3*maxBatchRefs+7, 1000) }},
		{name: "deep classes", write: func(w io.Writer) error { return hostile.DeepClassesDump(w, 3000) }},
		{name: "zlib streams", write: func(w io.Writer) error { return hostile.NativeHolderDump(w, 2000, 64) }},
		{name: "dangling references", write: danglingDump(5000, 2*maxBatchRefs+3)},
	}
	for _, d := range dumps {
		t.Run(d.name, func(t *testing.T) {
			path := jh.Dump
			if d.write != nil {
				path = writeShape(t, d)
			}
			seq := analyzeDump(t, path, true)
			par := analyzeDump(t, path, false)
			if seq.chunks != 0 || par.chunks < 10 {
				t.Fatalf("read in %d chunks sequentially, %d in parallel", seq.chunks, par.chunks)
			}
			if seq.nameChunks != 0 || par.nameChunks != par.chunks {
				t.Fatalf("names read in %d chunks sequentially, %d in parallel (references in %d)", seq.nameChunks, par.nameChunks, par.chunks)
			}
			if !bytes.Equal(seq.report, par.report) {
				t.Errorf("the reports differ:\nsequential %.600s\nparallel   %.600s", seq.report, par.report)
			}
			if !bytes.Equal(seq.index, par.index) {
				t.Errorf("the indexes differ: %d and %d bytes", len(seq.index), len(par.index))
			}
			if seq.dangling != par.dangling {
				t.Errorf("dangling references: %d sequentially, %d in parallel", seq.dangling, par.dangling)
			}
			t.Logf("%d chunks, index of %d bytes, %d dangling references", par.chunks, len(par.index), par.dangling)
		})
	}
}

// TestParallelReferencesDangling counts the dangling references read in
// parallel: a third of the list's objects and a fifth of the array's elements.
func TestParallelReferencesDangling(t *testing.T) {
	smallChunks(t, 101, 4096)
	n, refs := 5000, 2*maxBatchRefs+3
	a := analyzeDump(t, writeShape(t, hostileShape{name: "dangling", write: danglingDump(n, refs)}), false)
	if want := int64((n+2)/3 + (refs+4)/5); a.dangling != want {
		t.Errorf("%d dangling references, want %d", a.dangling, want)
	}
}

// TestCancelParallelReferences cancels the references' reading in parallel
// chunks, with the arrays in temporary files: it stops within a second,
// reports nothing after the cancel, gives back what it charged and leaves no
// file.
func TestCancelParallelReferences(t *testing.T) {
	smallChunks(t, 1000, 64<<10)
	defer func(was bool) { spillAlways = was }(spillAlways)
	spillAlways = true
	path := writeShape(t, hostileShape{name: "chain", write: func(w io.Writer) error { return hostile.ChainDump(w, 400_000, false, false) }})
	budget := analyze.NewBudget(0).Child(0)
	tmp := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var cancelled time.Time
	after, seen := 0, 0
	h, err := Open(path, OpenOptions{TempDir: tmp, Options: Options{Budget: budget, Context: ctx, OnProgress: func(p Progress) {
		if ctx.Err() != nil {
			after++
			return
		}
		if p.Stage == stageReferences {
			if seen++; seen == 3 {
				cancelled = time.Now()
				cancel()
			}
		}
	}}})
	took := time.Since(cancelled)
	if err == nil {
		h.Close()
		t.Fatalf("not stopped (%d reports of the references)", seen)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("stopped with %v", err)
	}
	if took > time.Second {
		t.Errorf("stopped %v after the cancel", took)
	}
	if after != 0 {
		t.Errorf("%d reports after the cancel", after)
	}
	if budget.Used() != 0 {
		t.Errorf("%d bytes charged after the stop", budget.Used())
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("%d files left in %s", len(left), filepath.Base(tmp))
	}
	if open := openTempFiles(t); len(open) != 0 {
		t.Errorf("temporary files still open: %v", open)
	}
}

// TestPanicInProgressStopsReaders panics in a progress callback while the
// references are read in parallel: the panic reaches the caller, and no
// reader is left running (over arrays that are unmapped after) or holding a
// file.
func TestPanicInProgressStopsReaders(t *testing.T) {
	smallChunks(t, 1000, 64<<10)
	defer func(was bool) { spillAlways = was }(spillAlways)
	spillAlways = true
	path := writeShape(t, hostileShape{name: "chain", write: func(w io.Writer) error { return hostile.ChainDump(w, 400_000, false, false) }})
	tmp := t.TempDir()
	seen := 0
	got := func() (got any) {
		defer func() { got = recover() }()
		h, err := Open(path, OpenOptions{TempDir: tmp, Options: Options{OnProgress: func(p Progress) {
			if p.Stage == stageReferences {
				if seen++; seen == 3 {
					panic("a progress callback's panic")
				}
			}
		}}})
		if err == nil {
			h.Close()
		}
		return nil
	}()
	if got != "a progress callback's panic" {
		t.Fatalf("recovered %v after %d reports of the references", got, seen)
	}
	goleak.VerifyNone(t)
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("%d files left in the temporary directory", len(left))
	}
	if open := openTempFiles(t); len(open) != 0 {
		t.Errorf("temporary files still open: %v", open)
	}
}
