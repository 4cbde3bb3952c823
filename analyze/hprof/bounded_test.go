package hprof

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/hostile"
)

// hostileShape is a valid heap dump of a pathological shape (internal/hostile)
// and what its report must say.
type hostileShape struct {
	name  string
	write func(w io.Writer) error
	// pathLength is the first suspect's path length, 0 to skip the check;
	// field the field of its steps below the root's.
	pathLength int
	field      string
}

// hostileShapes are the shapes at full size, or a tenth of it with -short.
func hostileShapes() []hostileShape {
	scale := 1
	if testing.Short() {
		scale = 10
	}
	chain, wide, deep, streams := 1_000_000/scale, 10_000_000/scale, 100_000/scale, 20_000/scale
	return []hostileShape{
		// A static field holds the first node: the path is the class, then every node.
		{"a chain of " + itoa(chain), func(w io.Writer) error { return hostile.ChainDump(w, chain, false, false) }, 0, "next"},
		{"a chain of " + itoa(chain) + ", dumped last first", func(w io.Writer) error { return hostile.ChainDump(w, chain, false, true) }, 0, "next"},
		{"a ring of " + itoa(chain), func(w io.Writer) error { return hostile.ChainDump(w, chain, true, false) }, 0, "next"},
		{"an array of " + itoa(wide) + " references", func(w io.Writer) error { return hostile.WideArrayDump(w, wide, 100_000/scale) }, 0, ""},
		{"a hierarchy " + itoa(deep) + " classes deep", func(w io.Writer) error { return hostile.DeepClassesDump(w, deep) }, 0, ""},
		{itoa(streams) + " zlib streams held by finalizers and a list", func(w io.Writer) error { return hostile.NativeHolderDump(w, streams, 512) }, 0, ""},
	}
}

// writeShape writes a shape's dump into the test's directory.
func writeShape(t testing.TB, s hostileShape) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "dump.hprof")
	if err := hostile.WriteHprof(path, s.write); err != nil {
		t.Fatal(err)
	}
	return path
}

// heapPeak samples the Go heap's objects (live and not yet swept) every
// millisecond until stop, and returns the largest value.
func heapPeak() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		return peak
	}
}

// TestHostileShapesStayWithinBudget analyzes each hostile shape under a budget
// of 256 MiB (a server's analysis budget under GOMEMLIMIT=1GiB), with the
// collector running often so that the Go heap is near what is live: the
// analysis, the report and the index must succeed, and the Go heap must never
// hold more than the budget beyond what it held before, nor twice what was
// charged at most (and the passes' buffers): everything the analysis takes is charged where it is
// taken, so what the budget lets through is what the heap holds.
func TestHostileShapesStayWithinBudget(t *testing.T) {
	const limit = 256 << 20
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	for _, s := range hostileShapes() {
		t.Run(s.name, func(t *testing.T) {
			dump := writeShape(t, s)
			runtime.GC()
			base := heapNow()
			stop := heapPeak()
			budget := analyze.NewBudget(0).Child(limit)
			h, err := Open(dump, OpenOptions{Options: Options{Budget: budget}})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := h.NewReport(ReportOptions{}, nil)
			if err != nil {
				h.Close()
				t.Fatal(err)
			}
			n, err := h.WriteIndex(io.Discard)
			charged, refs := h.mem.peak, len(h.out.targets)
			h.Close()
			peak := stop()
			if err != nil {
				t.Fatal(err)
			}
			grew := int64(peak) - int64(base)
			t.Logf("%s objects, %s references: charged at most %s, the Go heap grew by at most %s; index %s, report %s as JSON",
				analyze.FormatCount(rep.Objects), analyze.FormatCount(int64(refs)), analyze.FormatBytes(charged),
				analyze.FormatBytes(grew), analyze.FormatBytes(n), analyze.FormatBytes(int64(len(reportJSON(t, rep)))))
			if grew > limit {
				t.Errorf("the Go heap grew by %s under a budget of %s (%s charged at most)", analyze.FormatBytes(grew), analyze.FormatBytes(limit), analyze.FormatBytes(charged))
			}
			// Besides what is charged, a pass holds its 1 MiB read buffer, the
			// index its 256 kB write buffer.
			if charged < grew/2-8<<20 {
				t.Errorf("charged at most %s, less than half the %s the Go heap grew by", analyze.FormatBytes(charged), analyze.FormatBytes(grew))
			}
			if budget.Used() != 0 {
				t.Errorf("%d bytes still charged after Close", budget.Used())
			}
		})
	}
}

// heapNow is the Go heap's objects now.
func heapNow() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// TestHostileShapesReportsAreBounded checks the reports of the hostile shapes:
// each path keeps its ends with its true length, every list its count, and the
// report's JSON stays small whatever the dump; the index holds every step of
// the paths, which Index.PathSteps pages in the order of PathToRoot.
func TestHostileShapesReportsAreBounded(t *testing.T) {
	for _, s := range hostileShapes() {
		t.Run(s.name, func(t *testing.T) {
			dump := writeShape(t, s)
			h, err := Open(dump, OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			rep, err := h.NewReport(ReportOptions{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			js := reportJSON(t, rep)
			if len(js) > 512<<10 {
				t.Errorf("the report is %d bytes of JSON", len(js))
			}
			if len(rep.Suspects) == 0 {
				t.Fatalf("no suspect: %s", js[:min(len(js), 2000)])
			}
			var index bytes.Buffer
			if _, err := h.WriteIndex(&index); err != nil {
				t.Fatal(err)
			}
			x, err := OpenIndex(bytes.NewReader(index.Bytes()), int64(index.Len()))
			if err != nil {
				t.Fatal(err)
			}
			if x.PathCount() != len(rep.Suspects) {
				t.Fatalf("the index holds %d paths for %d suspects", x.PathCount(), len(rep.Suspects))
			}
			for i, su := range rep.Suspects {
				full := h.PathToRoot(su.Accumulation.Ordinal)
				if su.PathLength != len(full) || len(su.Path) > 2*PathEnds || len(su.Path) < min(len(full), 2*PathEnds) {
					t.Fatalf("suspect %d: %d steps kept of %d (PathLength %d)", i, len(su.Path), len(full), su.PathLength)
				}
				for j, st := range su.Path {
					if st.Object.Ordinal != full[st.Index] || (j > 0 && st.Index <= su.Path[j-1].Index) {
						t.Fatalf("suspect %d: step %d is object %d at %d, the path has %d there", i, j, st.Object.Ordinal, st.Index, full[st.Index])
					}
					if (st.Index == 0) != (st.Root != "") || (st.Index > 0 && st.Field == "") {
						t.Errorf("suspect %d: step %d at %d has root %q and field %q", i, j, st.Index, st.Root, st.Field)
					}
				}
				// The index pages the whole path, in pages of 1000 steps.
				const page = 1000
				seen := 0
				for off := 0; off < len(full); off += page {
					steps, total, err := x.PathSteps(i, off, page)
					if err != nil || total != len(full) {
						t.Fatalf("suspect %d, steps from %d: %d in all, %v", i, off, total, err)
					}
					for k, st := range steps {
						at := off + k
						if st.Index != at || st.Object.Ordinal != full[at] {
							t.Fatalf("suspect %d: step %d of the index is object %d at %d, want %d", i, at, st.Object.Ordinal, st.Index, full[at])
						}
						if at > 0 && st.Field == "" {
							t.Fatalf("suspect %d: step %d has no field", i, at)
						}
						if s.field != "" && at > 1 && st.Field != s.field {
							t.Fatalf("suspect %d: step %d through %q, want %q", i, at, st.Field, s.field)
						}
						if at == 0 && st.Root != su.Path[0].Root {
							t.Fatalf("suspect %d: the index's root %q, the report's %q", i, st.Root, su.Path[0].Root)
						}
					}
					seen += len(steps)
				}
				if seen != len(full) {
					t.Fatalf("suspect %d: paged %d of %d steps", i, seen, len(full))
				}
				// The dominator chain of the accumulation point by its ends.
				objs, idx, length, err := x.Chain(su.Accumulation.Ordinal, PathEnds)
				if err != nil || len(objs) > PathEnds+1 || len(objs) == 0 || objs[len(objs)-1].Ordinal != su.Accumulation.Ordinal || idx[len(idx)-1] != length-1 {
					t.Fatalf("suspect %d: the chain's ends %v at %v of %d, %v", i, objs, idx, length, err)
				}
				t.Logf("suspect %d: %s; a path of %s steps, a dominator chain of %s", i, su.Sentence,
					analyze.FormatCount(int64(su.PathLength)), analyze.FormatCount(int64(length)))
			}
			t.Logf("report %s as JSON, index %s", analyze.FormatBytes(int64(len(js))), analyze.FormatBytes(int64(index.Len())))
		})
	}
}

// TestWorstCaseReportIsBounded fills every list of a report to its cap with
// names of MaxName characters that JSON escapes six bytes each: the bound the
// stored summary is built on.
func TestWorstCaseReportIsBounded(t *testing.T) {
	name := strings.Repeat("<", MaxName)
	obj := Object{ID: "0xffffffffffffffff", Class: name, Text: name, Shallow: 1 << 40, Retained: 1 << 40, Dominated: 1 << 30}
	rep := &Report{}
	const top = 25
	for range top {
		tree := obj
		for range 8 {
			child := obj
			for range 8 {
				child.Children = append(child.Children, obj)
			}
			tree.Children = append(tree.Children, child)
		}
		rep.Dominators = append(rep.Dominators, tree)
		su := Suspect{Class: name, Holder: name, Accumulation: obj, Sentence: strings.Repeat(name, 5)}
		for range MaxHoldingThreads {
			su.Threads = append(su.Threads, name)
		}
		for i := range 2 * PathEnds {
			su.Path = append(su.Path, Step{Object: obj, Field: name, Root: name, Index: i})
		}
		rep.Suspects = append(rep.Suspects, su)
		th := Thread{Name: name, Object: obj}
		for range MaxStack {
			th.Stack = append(th.Stack, Frame{Class: name, Method: name, Source: name})
		}
		rep.Threads = append(rep.Threads, th)
		rep.Histogram = append(rep.Histogram, ClassRow{Name: name})
		rep.Packages = append(rep.Packages, PackageRow{Package: name})
		rep.DuplicateStrings = append(rep.DuplicateStrings, DuplicateString{Text: name})
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the worst report of the default options is %s of JSON", analyze.FormatBytes(int64(len(b))))
	if len(b) > 12<<20 {
		t.Errorf("%d bytes", len(b))
	}
}

// TestClipKeepsCharacters cuts names on character boundaries.
func TestClipKeepsCharacters(t *testing.T) {
	for _, s := range []string{strings.Repeat("é", MaxName), strings.Repeat("a", MaxName+1), strings.Repeat("😀", 100)} {
		c := clip(s)
		if len(c) > MaxName || !strings.HasSuffix(c, "…") || !utf8Valid(c) {
			t.Errorf("clip of %d bytes: %d bytes %q", len(s), len(c), c[max(0, len(c)-10):])
		}
	}
	if c := clip("short"); c != "short" {
		t.Errorf("clip(short) = %q", c)
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// TestIndexVersion1 reads an index written before paths and depths were kept
// (version 1: the same sections without the last four): its chains are walked,
// it has no paths.
func TestIndexVersion1(t *testing.T) {
	s := hostileShape{name: "chain", write: func(w io.Writer) error { return hostile.ChainDump(w, 1000, false, false) }}
	h, err := Open(writeShape(t, s), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	rep, err := h.NewReport(ReportOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	data := writeIndex(t, h)
	x := mustOpenIndex(t, data)
	v1 := asVersion1(t, x, data)
	old := mustOpenIndex(t, v1)
	if old.PathCount() != 0 {
		t.Errorf("a version 1 index holds %d paths", old.PathCount())
	}
	if _, _, err := old.PathSteps(0, 0, 10); !errors.Is(err, analyze.ErrInvalidParameter) {
		t.Errorf("the steps of a path a version 1 index lacks: %v", err)
	}
	point := rep.Suspects[0].Accumulation.Ordinal
	for _, ends := range []int{1, 3, 2000} {
		a, ai, an, aerr := x.Chain(point, ends)
		b, bi, bn, berr := old.Chain(point, ends)
		if aerr != nil || berr != nil || an != bn || fmt.Sprint(ai) != fmt.Sprint(bi) || fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("ends %d: version 2 %v at %v of %d (%v); version 1 %v at %v of %d (%v)", ends, len(a), ai, an, aerr, len(b), bi, bn, berr)
		}
	}
}

// asVersion1 rewrites an index of version 2 as version 1 wrote it: the header
// without the last four sections, the rest without them.
func asVersion1(t testing.TB, x *Index, data []byte) []byte {
	t.Helper()
	hd := x.hd.indexHeaderV1
	hd.Version = 1
	shift := uint64(indexHeaderSize - indexHeaderV1Size)
	for _, s := range []*section{&hd.ClassOffsets, &hd.ClassNames, &hd.Records, &hd.Kids, &hd.BigShallow, &hd.TextIndex, &hd.TextBlob} {
		s.Offset -= shift
	}
	var b bytes.Buffer
	if err := writeHeader(&b, &hd); err != nil {
		t.Fatal(err)
	}
	b.Write(data[indexHeaderSize:x.hd.Ancestry.Offset])
	return b.Bytes()
}

// writeHeader encodes a version 1 header.
func writeHeader(w io.Writer, hd *indexHeaderV1) error {
	b, err := binary.Append(nil, le, hd)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}
