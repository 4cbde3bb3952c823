package hprof

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/leakui/leakui/analyze"
)

// writeIndex writes h's index into memory.
func writeIndex(t testing.TB, h *Heap) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := h.WriteIndex(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) {
		t.Fatalf("WriteIndex says %d bytes, wrote %d", n, buf.Len())
	}
	return buf.Bytes()
}

// smallDumpHeap is the heap of TestDominatorsOfARealDumpByRemoval's dump, with its
// report.
func smallDumpHeap(t testing.TB) *Heap {
	t.Helper()
	jh := runJava(t, "LeakShape", true, []string{"-XX:+UseSerialGC", "-Xmx64m"}, "3", "4096", "30", "10")
	h, err := Open(jh.Dump, OpenOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if _, err := h.NewReport(ReportOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	return h
}

// sameObject compares an object read from the index with the heap's.
func sameObject(t *testing.T, h *Heap, got Object, o uint32) {
	t.Helper()
	want := h.object(o)
	want.Dominated = len(h.Dominated(o, false))
	if got.Ordinal != want.Ordinal || got.ID != want.ID || got.Class != want.Class ||
		got.Shallow != want.Shallow || got.Retained != want.Retained || got.Dominated != want.Dominated {
		t.Fatalf("object %d from the index: %+v, the heap says %+v", o, got, want)
	}
	if want.Text == "" {
		want.Text = h.texts[o]
	}
	if want.Text != "" && got.Text != want.Text {
		t.Fatalf("object %d's text from the index: %q, the heap says %q", o, got.Text, want.Text)
	}
}

// checkIndex compares every node of the index with the heap: its children (all of
// them, in order), its description and its dominator chain.
func checkIndex(t *testing.T, h *Heap, x *Index, idom []uint32) {
	t.Helper()
	n := uint32(h.Objects())
	if x.Objects() != int(n) || x.TotalRetained() != h.TotalRetained() {
		t.Fatalf("index: %d objects retaining %d; heap: %d retaining %d", x.Objects(), x.TotalRetained(), n, h.TotalRetained())
	}
	reachable := 0
	for o := range n {
		if h.Reachable(o) {
			reachable++
		}
	}
	if x.Reachable() != reachable {
		t.Fatalf("index: %d reachable, heap: %d", x.Reachable(), reachable)
	}
	root, err := x.Object(IndexRoot)
	if err != nil || root.Retained != h.TotalRetained() || root.Dominated != len(h.Dominated(0, true)) {
		t.Fatalf("the virtual root: %+v, %v", root, err)
	}
	texts := 0
	for node := range n + 1 {
		want := h.Dominated(node, false)
		if node == n {
			node, want = IndexRoot, h.Dominated(0, true)
		}
		kids, total, err := x.Children(node, 0, len(want)+1)
		if err != nil {
			t.Fatal(err)
		}
		if total != len(want) || len(kids) != len(want) {
			t.Fatalf("node %d: %d children (%d in all), the heap says %d", node, len(kids), total, len(want))
		}
		for i, k := range kids {
			sameObject(t, h, k, want[i])
			if i > 0 && kids[i-1].Retained < k.Retained {
				t.Fatalf("node %d: child %d retains more than child %d", node, i, i-1)
			}
		}
		if node == IndexRoot {
			continue
		}
		obj, err := x.Object(node)
		if err != nil {
			t.Fatal(err)
		}
		sameObject(t, h, obj, node)
		if obj.Text != "" {
			texts++
		}
		path, index, length, err := x.Chain(node, 1<<20)
		if !h.Reachable(node) {
			if !errors.Is(err, analyze.ErrInvalidParameter) {
				t.Fatalf("the chain of unreachable object %d: %v, %v", node, path, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		var chain []uint32
		for o := node; o != n; o = idom[o] {
			chain = append([]uint32{o}, chain...)
		}
		if len(path) != len(chain) || length != len(chain) {
			t.Fatalf("object %d: the index's chain has %d objects (%d in all), the dominator chain %d", node, len(path), length, len(chain))
		}
		for i, p := range path {
			if p.Ordinal != chain[i] || index[i] != i {
				t.Fatalf("object %d: step %d of the chain is %d at %d, the dominator chain says %d", node, i, p.Ordinal, index[i], chain[i])
			}
		}
		// Its ends: the top, and the two objects down to node.
		ends, index, length, err := x.Chain(node, 2)
		if err != nil || length != len(chain) {
			t.Fatalf("object %d: the chain's ends: %d in all, %v", node, length, err)
		}
		wantIndex := []int{len(chain) - 2, len(chain) - 1}
		if len(chain) > 2 {
			wantIndex = append([]int{0}, wantIndex...)
		}
		if len(chain) < 2 {
			wantIndex = []int{0}
		}
		if !slices.Equal(index, wantIndex) {
			t.Fatalf("object %d: the chain's ends are at %v, want %v", node, index, wantIndex)
		}
		for i, p := range ends {
			if p.Ordinal != chain[index[i]] {
				t.Fatalf("object %d: end %d is %d, the dominator chain says %d", node, i, p.Ordinal, chain[index[i]])
			}
		}
	}
	if texts == 0 {
		t.Error("no object of the index has a text")
	}
	t.Logf("%d objects (%d reachable), %d with texts, checked", n, reachable, texts)
}

// TestIndexOfLeakShape checks the index of LeakShape's dump node by node against
// the analyzed heap, and the report's texts.
func TestIndexOfLeakShape(t *testing.T) {
	h, rep, _, _ := leakShapeHeap(t, false)
	data := writeIndex(t, h)
	t.Logf("index: %d bytes for %d objects (%.1f bytes an object)", len(data), h.Objects(), float64(len(data))/float64(h.Objects()))
	x, err := OpenIndex(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	checkIndex(t, h, x, h.idom)
	top, _, err := x.Children(IndexRoot, 0, len(rep.Dominators))
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range rep.Dominators {
		if top[i].Ordinal != d.Ordinal || top[i].Text != d.Text || top[i].Retained != d.Retained || top[i].Dominated != d.Dominated {
			t.Errorf("top %d: index %+v, report %+v", i, top[i], d)
		}
	}
	named := 0
	for _, th := range rep.Threads {
		obj, err := x.Object(th.Object.Ordinal)
		if err != nil || obj.Text != th.Name {
			t.Errorf("thread %q: the index says %+v, %v", th.Name, obj, err)
		}
		named++
	}
	if named == 0 {
		t.Error("the report names no thread")
	}
}

// TestIndexPaging pages through the top level and a big node.
func TestIndexPaging(t *testing.T) {
	h := smallDumpHeap(t)
	data := writeIndex(t, h)
	x, err := OpenIndex(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, node := range []uint32{IndexRoot, h.Dominated(0, true)[0]} {
		all, total, err := x.Children(node, 0, 1<<30)
		if err != nil || len(all) != total || total < 3 {
			t.Fatalf("node %d: %d children of %d, %v", node, len(all), total, err)
		}
		for _, c := range []struct{ offset, limit int }{
			{0, 0}, {0, 1}, {0, 2}, {1, 2}, {total - 1, 5}, {total, 1}, {total + 10, 3}, {2, total}, {0, total},
		} {
			page, n, err := x.Children(node, c.offset, c.limit)
			if err != nil || n != total {
				t.Fatalf("node %d, offset %d, limit %d: %d in all, %v", node, c.offset, c.limit, n, err)
			}
			want := all[min(c.offset, total):min(c.offset+c.limit, total)]
			if page == nil || len(page) != len(want) {
				t.Fatalf("node %d, offset %d, limit %d: %d objects, want %d", node, c.offset, c.limit, len(page), len(want))
			}
			for i := range page {
				if !reflect.DeepEqual(page[i], want[i]) {
					t.Fatalf("node %d, offset %d, limit %d: object %d is %+v, want %+v", node, c.offset, c.limit, i, page[i], want[i])
				}
			}
		}
		for _, c := range []struct{ offset, limit int }{{-1, 1}, {0, -1}} {
			if _, _, err := x.Children(node, c.offset, c.limit); !errors.Is(err, analyze.ErrInvalidParameter) {
				t.Errorf("offset %d, limit %d: %v", c.offset, c.limit, err)
			}
		}
	}
	for _, node := range []uint32{uint32(h.Objects()), IndexRoot - 1} {
		if _, _, err := x.Children(node, 0, 1); !errors.Is(err, analyze.ErrInvalidParameter) {
			t.Errorf("Children of node %d: %v", node, err)
		}
		if _, err := x.Object(node); !errors.Is(err, analyze.ErrInvalidParameter) {
			t.Errorf("Object %d: %v", node, err)
		}
	}
	if p, _, n, err := x.Chain(IndexRoot, 4); p != nil || n != 0 || err != nil {
		t.Errorf("the chain of the root: %v, %v", p, err)
	}
}

// walkIndex asks x for every node's object, children and chain, and the ends
// of its paths, and returns the
// first error; it must not panic whatever the index holds.
func walkIndex(x *Index, maxNodes int) error {
	var first error
	note := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	nodes := min(x.Objects(), maxNodes)
	for node := range uint32(nodes) + 1 {
		if int(node) == nodes {
			node = IndexRoot
		}
		_, err := x.Object(node)
		note(err)
		_, _, err = x.Children(node, 0, 64)
		note(err)
		_, _, _, err = x.Chain(node, 4)
		if !errors.Is(err, analyze.ErrInvalidParameter) {
			note(err)
		}
	}
	for i := range min(x.PathCount(), 4) {
		_, total, err := x.PathSteps(i, 0, 16)
		note(err)
		_, _, err = x.PathSteps(i, max(total-16, 0), 16)
		note(err)
	}
	if x.hd.Version < 3 {
		return first
	}
	// The views.
	for node := range uint32(nodes) {
		_, _, _, err := x.PathToRoot(node, 4)
		if !errors.Is(err, analyze.ErrInvalidParameter) {
			note(err)
		}
		_, _, err = x.PathPage(node, 0, 8)
		if !errors.Is(err, analyze.ErrInvalidParameter) {
			note(err)
		}
		if node < 64 {
			_, _, err = x.ChildrenByClass(node, 0, 8)
			note(err)
		}
	}
	groups, _, err := x.DominatorsByClass(0, 1<<20)
	note(err)
	for _, g := range groups[:min(len(groups), 8)] {
		_, _, err := x.ClassGroupMembers(g.Class, 0, 8)
		note(err)
	}
	loaders, _, err := x.DominatorsByLoader(0, 1<<20)
	note(err)
	for _, l := range loaders[:min(len(loaders), 8)] {
		_, _, err := x.LoaderClasses(l.Loader.Ordinal, 0, 8)
		note(err)
	}
	_, _, _, err = x.Unreachable(0, 64)
	note(err)
	_, _, err = x.DuplicateClasses(0, 64)
	note(err)
	_, err = x.Histogram()
	note(err)
	// The GC roots' section, read through the roots' labels.
	for i := uint64(0); i < x.hd.GCRoots.Length/rootEntry && i < 4096; i++ {
		var e [rootEntry]byte
		note(x.readAt(e[:], x.hd.GCRoots.Offset+i*rootEntry))
		if o := le.Uint32(e[:]); uint64(o) < x.hd.Objects {
			_, err := x.rootLabel(o)
			note(err)
		}
	}
	return first
}

// TestIndexCorrupt checks that every truncation, every header field set to
// hostile values and hostile records give an ErrMalformed error (at OpenIndex or
// when the nodes are read) and that OpenIndex allocates no more than the index's
// size.
func TestIndexCorrupt(t *testing.T) {
	h := smallDumpHeap(t)
	data := writeIndex(t, h)
	if err := walkIndex(mustOpenIndex(t, data), 1<<30); err != nil {
		t.Fatalf("the intact index: %v", err)
	}
	for cut := range len(data) {
		if _, err := OpenIndex(bytes.NewReader(data[:cut]), int64(cut)); !errors.Is(err, analyze.ErrMalformed) {
			t.Fatalf("the index cut to %d of %d bytes: %v", cut, len(data), err)
		}
	}
	// A reader shorter than the size it is said to have.
	for _, cut := range []int{len(data) / 3, len(data) / 2, len(data) - 1} {
		x, err := OpenIndex(bytes.NewReader(data[:cut]), int64(len(data)))
		if err == nil {
			err = walkIndex(x, 1<<30)
		}
		if !errors.Is(err, analyze.ErrMalformed) {
			t.Fatalf("the index cut to %d bytes, said to have %d: %v", cut, len(data), err)
		}
	}
	// Every 4-byte word of the header, set to hostile values.
	hostile := []uint32{0, 1, 7, 0xFFFFFFFF, 0x7FFFFFFF, uint32(len(data)), uint32(len(data) - 1), uint32(indexHeaderSize)}
	accepted := 0
	for at := 0; at < indexHeaderSize; at += 4 {
		for _, v := range hostile {
			bad := bytes.Clone(data)
			if le.Uint32(bad[at:]) == v {
				continue
			}
			le.PutUint32(bad[at:], v)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			x, err := OpenIndex(bytes.NewReader(bad), int64(len(bad)))
			runtime.ReadMemStats(&after)
			if grew := after.TotalAlloc - before.TotalAlloc; grew > uint64(2*len(bad))+1<<20 {
				t.Fatalf("header word %d = %#x: OpenIndex allocated %d bytes for an index of %d", at/4, v, grew, len(bad))
			}
			if err == nil {
				accepted++
				err = walkIndex(x, 2048)
				if err == nil {
					continue // a change that leaves the index valid (a reserved word, a text moved)
				}
			}
			if !errors.Is(err, analyze.ErrMalformed) {
				t.Fatalf("header word %d = %#x: %v", at/4, v, err)
			}
		}
	}
	t.Logf("%d header changes opened", accepted)
	// Records pointing outside: children beyond the array, a class beyond the table, a
	// dominator loop.
	x := mustOpenIndex(t, data)
	top, _, err := x.Children(IndexRoot, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	o := top[0].Ordinal
	kid := h.Dominated(o, false)[0]
	rec := func(o uint32) int { return int(x.hd.Records.Offset + uint64(o)*x.recSize) }
	for name, corrupt := range map[string]func(b []byte){
		"children past the end": func(b []byte) { le.PutUint32(b[rec(o+1):], 0xFFFFFF) },
		"children backwards":    func(b []byte) { le.PutUint32(b[rec(o):], le.Uint32(b[rec(o+1):])+1) },
		"class past the table":  func(b []byte) { le.PutUint32(b[rec(kid)+8:], 0x7FFFFFF0) },
		"dominator loop":        func(b []byte) { le.PutUint32(b[rec(o)+4:], kid) },
		"dominator unreachable": func(b []byte) { le.PutUint32(b[rec(o)+4:], uint32(h.Objects())+1) },
		"child past the objects": func(b []byte) {
			le.PutUint32(b[int(x.hd.Kids.Offset)+4*int(le.Uint32(b[rec(o):])):], uint32(h.Objects()))
		},
	} {
		bad := bytes.Clone(data)
		corrupt(bad)
		bx := mustOpenIndex(t, bad)
		err := walkIndex(bx, 1<<30)
		if _, _, _, perr := bx.Chain(kid, 1<<20); err == nil {
			err = perr
		}
		if !errors.Is(err, analyze.ErrMalformed) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Counts larger than the file.
	for name, v := range map[string]uint64{"objects": 1 << 31, "classes": 1 << 30} {
		bad := bytes.Clone(data)
		var hd indexHeader
		if _, err := binary.Decode(bad, le, &hd); err != nil {
			t.Fatal(err)
		}
		switch name {
		case "objects":
			hd.Objects = v
		case "classes":
			hd.Classes = uint32(v)
		}
		enc, _ := binary.Append(nil, le, &hd)
		copy(bad, enc)
		if _, err := OpenIndex(bytes.NewReader(bad), int64(len(bad))); !errors.Is(err, analyze.ErrMalformed) {
			t.Errorf("%s = %d: %v", name, v, err)
		}
	}
}

func mustOpenIndex(t *testing.T, data []byte) *Index {
	t.Helper()
	x, err := OpenIndex(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestWriteIndexBeforeAnalyze refuses a heap not analyzed.
func TestWriteIndexBeforeAnalyze(t *testing.T) {
	if _, err := (&Heap{}).WriteIndex(&bytes.Buffer{}); err == nil {
		t.Error("WriteIndex before Analyze wrote an index")
	}
}
