package hprof

import (
	"bytes"
	"testing"
)

// BenchmarkChildGroups measures what the web's dominator tree pays to group a
// level by class (GroupAuto's check, ChildrenByClass, then a page of
// ChildGroups): at the top level, read from the index's groups, and at the
// object of the benchmark dump that dominates the most children, read one
// record a child.
func BenchmarkChildGroups(b *testing.B) {
	h := benchHeap(b)
	var buf bytes.Buffer
	if _, err := h.WriteIndex(&buf); err != nil {
		b.Fatal(err)
	}
	x, err := OpenIndex(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		b.Fatal(err)
	}
	// The object with the most children.
	widest, most := uint32(0), 0
	for o := range uint32(x.Objects()) {
		rec, err := x.record(o)
		if err != nil {
			b.Fatal(err)
		}
		if n := int(rec.kidsEnd - rec.kidsStart); n > most {
			widest, most = o, n
		}
	}
	_, top, _ := x.Children(IndexRoot, 0, 0)
	b.Logf("%d objects; the top level has %d, object %d dominates %d", x.Objects(), top, widest, most)
	for _, c := range []struct {
		name string
		node uint32
	}{{"top", IndexRoot}, {"widest", widest}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := x.ChildrenByClass(c.node, 0, 1<<20); err != nil {
					b.Fatal(err)
				}
				if _, _, err := x.ChildGroups(c.node, 0, 25); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
