package hprof

import (
	"bytes"
	"errors"
	"testing"

	"github.com/leakui/leakui/analyze"
)

// TestViewsOnTheJDK checks the index's views against what must be true on a
// real JVM's dump taken with `jcmd GC.heap_dump -all` (the SAMZA-2785 shape of
// testdata/LeakShape.java, with a registry of weak references to the
// consumers, an object only a soft reference reaches, and the garbage a dump
// without a GC keeps):
//
//   - the dominator tree grouped by class, and by class loader, adds up to the
//     reachable heap, and the index's histogram is the report's;
//   - every reachable object's path from a GC root is as long as the heap's
//     shortest strong path and never passes through Reference.referent; an
//     object reached only through a soft reference has none;
//   - the objects not strongly reachable, by class, are the dump's objects
//     minus the reachable ones, and their sizes the dump's shallow size minus
//     the reachable heap.
func TestViewsOnTheJDK(t *testing.T) {
	jh := runAllJava(t, "LeakShape", false, []string{"-XX:+UseSerialGC", "-Xmx128m"}, "6", "1048576", "100", "10")
	h, err := Open(jh.Dump, OpenOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	rep, err := h.NewReport(ReportOptions{}, nil)
	if err != nil {
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
	sum := x.Summary()
	if sum.Reachable != rep.Reachable || sum.Objects != rep.Objects {
		t.Fatalf("index summary %+v, report: %d objects, %d reachable", sum, rep.Objects, rep.Reachable)
	}

	// Grouped by class and by loader, the top level adds up to the reachable heap.
	groups, total, err := x.DominatorsByClass(0, 1<<20)
	if err != nil || total != len(groups) {
		t.Fatalf("%d of %d groups: %v", len(groups), total, err)
	}
	var retained, tops int64
	for _, g := range groups {
		retained += g.Retained
		tops += g.Objects
	}
	if retained != sum.Reachable {
		t.Errorf("the groups by class retain %d, the reachable heap is %d", retained, sum.Reachable)
	}
	if want := int64(len(h.Dominated(uint32(h.Objects()), true))); tops != want {
		t.Errorf("the groups by class hold %d top-level objects, the dominator tree %d", tops, want)
	}
	loaders, _, err := x.DominatorsByLoader(0, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	retained = 0
	for _, l := range loaders {
		retained += l.Retained
	}
	if retained != sum.Reachable || len(loaders) < 2 { // the bootstrap loader, and the application's
		t.Errorf("%d loaders retain %d, the reachable heap is %d", len(loaders), retained, sum.Reachable)
	}
	hist, err := x.Histogram()
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != len(rep.Histogram) {
		t.Fatalf("the index's histogram has %d rows, the report's %d", len(hist), len(rep.Histogram))
	}
	for i := range hist {
		if hist[i] != rep.Histogram[i] {
			t.Errorf("histogram row %d: index %+v, report %+v", i, hist[i], rep.Histogram[i])
		}
	}

	// Paths from the GC roots.
	reachable, referents := int64(0), 0
	for o := range uint32(h.Objects()) {
		if !h.Reachable(o) {
			if _, _, _, err := x.PathToRoot(o, 4); !errors.Is(err, analyze.ErrInvalidParameter) {
				t.Fatalf("object %d is not strongly reachable, its path: %v", o, err)
			}
			continue
		}
		reachable++
		steps, n, err := x.PathPage(o, 0, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if want := len(h.PathToRoot(o)); n != want || len(steps) != n {
			t.Fatalf("object %d: a path of %d steps (%d read), the heap's is %d", o, n, len(steps), want)
		}
		for _, st := range steps {
			if st.Field == "referent" {
				referents++
			}
		}
	}
	if referents != 0 {
		t.Errorf("%d steps of paths go through Reference.referent", referents)
	}
	if reachable != sum.ReachableObjects {
		t.Errorf("%d objects have a path, %d are reachable", reachable, sum.ReachableObjects)
	}
	soft := h.classByName("LeakShape$SoftOnly")
	if soft == nil {
		t.Fatal("no LeakShape$SoftOnly in the dump")
	}

	// What is not strongly reachable.
	rows, _, all, err := x.Unreachable(0, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if all.Objects != sum.Objects-sum.ReachableObjects || all.Shallow != sum.Shallow-sum.Reachable {
		t.Errorf("not strongly reachable: %d objects of %d bytes; the dump has %d objects of %d bytes, %d of %d bytes reachable",
			all.Objects, all.Shallow, sum.Objects, sum.Shallow, sum.ReachableObjects, sum.Reachable)
	}
	if all.Unreachable.Count == 0 || all.Weak.Count == 0 {
		t.Errorf("a dump taken with -all, with soft and weak references: %+v", all)
	}
	if all.Objects != all.Weak.Count+all.PendingCleanup.Count+all.Unreachable.Count {
		t.Errorf("not strongly reachable: %+v does not add up", all)
	}
	var objects int64
	found := false
	for _, r := range rows {
		objects += r.Weak.Count + r.PendingCleanup.Count + r.Unreachable.Count
		if r.Class == "LeakShape$SoftOnly" {
			found = r.Weak.Count == 1 && r.Objects == 1
		}
	}
	if objects != all.Objects {
		t.Errorf("the classes not strongly reachable add up to %d objects, the total is %d", objects, all.Objects)
	}
	if !found {
		t.Errorf("LeakShape$SoftOnly is not the one object only a soft reference reaches (%d classes)", len(rows))
	}
	dups, _, err := x.DuplicateClasses(0, 64)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d groups by class, %d loaders, %d classes not strongly reachable (%+v), %d duplicate classes", len(groups), len(loaders), len(rows), all, len(dups))
}
