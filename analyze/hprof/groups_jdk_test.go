package hprof

import (
	"bytes"
	"testing"
)

// TestChildGroupsOnTheJDK walks the whole dominator tree of a real JVM's dump
// (testdata/LeakShape.java, taken with -all: 40 consumer threads at the top
// level) grouped by class at every level, as the web's tree shows it, opening
// every group onto its objects: every strongly reachable object is visited
// once, and the totals by class equal the class histogram's strongly
// reachable instances and shallow sizes. At every level a group's count,
// shallow and retained sizes are those of the node's children of its class,
// its largest object is their first, and its objects, paged, are those
// children in order.
func TestChildGroupsOnTheJDK(t *testing.T) {
	jh := runAllJava(t, "LeakShape", false, []string{"-XX:+UseSerialGC", "-Xmx128m"}, "40", "4096", "100", "10")
	h, err := Open(jh.Dump, OpenOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := h.NewReport(ReportOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := h.WriteIndex(&buf); err != nil {
		t.Fatal(err)
	}
	x, err := OpenIndex(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	infos, err := x.classInfos()
	if err != nil {
		t.Fatal(err)
	}

	count := make([]int64, len(infos))
	shallow := make([]int64, len(infos))
	visited := 0
	sawConsumers := false
	var walk func(node uint32)
	walk = func(node uint32) {
		kids, total, err := x.Children(node, 0, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		groups, ngroups, err := x.ChildGroups(node, 0, 1<<30)
		if err != nil || ngroups != len(groups) {
			t.Fatalf("node %d: %d of %d groups: %v", node, len(groups), ngroups, err)
		}
		seen := 0
		for i, g := range groups {
			if i > 0 && g.Retained > groups[i-1].Retained {
				t.Errorf("node %d: group %d retains %d, more than the one before (%d)", node, i, g.Retained, groups[i-1].Retained)
			}
			var want []Object
			var wantShallow, wantRetained int64
			for _, k := range kids {
				if x.classes[classOf(t, x, k.Ordinal)] == g.Name && classOf(t, x, k.Ordinal) == uint32(g.Class) {
					want = append(want, k)
					wantShallow += k.Shallow
					wantRetained += k.Retained
				}
			}
			if int64(len(want)) != g.Objects || wantShallow != g.Shallow || wantRetained != g.Retained || len(want) == 0 || g.Largest.Ordinal != want[0].Ordinal {
				t.Fatalf("node %d, group %s: %d objects, %d shallow, %d retained, largest %d; its children of that class: %d, %d, %d", node, g.Name,
					g.Objects, g.Shallow, g.Retained, g.Largest.Ordinal, len(want), wantShallow, wantRetained)
			}
			if node == IndexRoot && g.Name == "LeakShape$ConsumerThread" && g.Objects == 40 {
				sawConsumers = true
			}
			// Its objects, 7 a page.
			var members []Object
			for off := 0; ; off += 7 {
				p, n, err := x.ClassMembers(node, g.Class, off, 7)
				if err != nil || n != len(want) {
					t.Fatalf("node %d, class %s at %d: %d of %d: %v", node, g.Name, off, len(p), n, err)
				}
				members = append(members, p...)
				if len(p) < 7 {
					break
				}
			}
			for j := range want {
				if j >= len(members) || members[j].Ordinal != want[j].Ordinal {
					t.Fatalf("node %d, class %s: its objects %v, its children of the class %v", node, g.Name, members, want)
				}
			}
			seen += len(members)
			for _, m := range members {
				visited++
				c := classOf(t, x, m.Ordinal)
				count[c]++
				shallow[c] += m.Shallow
				if m.Dominated > 0 {
					walk(m.Ordinal)
				}
			}
		}
		if seen != total {
			t.Fatalf("node %d: its groups hold %d objects, it dominates %d", node, seen, total)
		}
	}
	walk(IndexRoot)
	if visited != x.Reachable() {
		t.Errorf("the grouped tree holds %d objects, the index %d reachable", visited, x.Reachable())
	}
	if !sawConsumers {
		t.Error("no group of the 40 consumer threads at the top level")
	}
	for i, c := range infos {
		if count[i] != c.reach[Strong].Count || shallow[i] != c.reach[Strong].Bytes {
			t.Errorf("class %s: the grouped tree holds %d objects of %d bytes, the histogram %d strongly reachable of %d bytes",
				x.classes[i], count[i], shallow[i], c.reach[Strong].Count, c.reach[Strong].Bytes)
		}
	}
	if _, _, err := x.ClassMembers(IndexRoot, len(infos), 0, 1); err == nil {
		t.Error("a class out of range has members")
	}
}

// classOf is object o's class number.
func classOf(t *testing.T, x *Index, o uint32) uint32 {
	t.Helper()
	rec, err := x.record(o)
	if err != nil {
		t.Fatal(err)
	}
	return rec.class
}
