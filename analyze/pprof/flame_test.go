package pprof

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/hostile"
)

// TestFlameAgreesWithTop checks the unpruned flame graph against the top table, an
// independent aggregation that itself matches pprof: a function's cum is the sum of
// its boxes that have no ancestor of the same name, and its flat is the sum of its
// boxes' self values.
func TestFlameAgreesWithTop(t *testing.T) {
	for _, name := range []string{"flameshow-heap.pb.gz", "parca-fgprof-wallclock.pb.gz", "goprofnotes-goroutine-snap2-debug0.pb.gz", "google-pprof-cppbench-legacy-text-heapz_v2.heap"} {
		p := loadFile(t, fixtures.Path(t, "pprof", name))
		si := p.DefaultSampleIndex()
		fg := mustFlame(t, p, si, 0)
		top := mustTop(t, p, si)
		if fg.Total != top.Total || fg.Dropped != 0 || fg.Hidden != 0 {
			t.Fatalf("%s: flame total %d dropped %d, top total %d", name, fg.Total, fg.Dropped, top.Total)
		}
		cum, flat := map[string]int64{}, map[string]int64{}
		var walk func(n *FlameNode, onPath map[string]int)
		walk = func(n *FlameNode, onPath map[string]int) {
			if onPath[n.Name] == 0 {
				cum[n.Name] += n.Value
			}
			self := n.Value
			onPath[n.Name]++
			for _, c := range n.Children {
				self -= c.Value
				walk(c, onPath)
			}
			onPath[n.Name]--
			flat[n.Name] += self
		}
		for _, c := range fg.Root.Children {
			walk(c, map[string]int{})
		}
		for _, row := range top.Rows {
			if cum[row.Name] != row.Cum || flat[row.Name] != row.Flat {
				t.Errorf("%s: %s flame cum %d flat %d, top cum %d flat %d", name, row.Name, cum[row.Name], flat[row.Name], row.Cum, row.Flat)
			}
		}
	}
}

// TestFlamePrunesNarrowBoxes: a cut keeps exactly the boxes at least
// minFraction of the root wide (every box of the full tree that is, none that
// is not), and Hidden is the value of the boxes left out whose parent is kept.
func TestFlamePrunesNarrowBoxes(t *testing.T) {
	p := loadFile(t, fixtures.Path(t, "pprof", "erigon-integration-heap.pb.gz"))
	si := p.DefaultSampleIndex()
	full, pruned := mustFlame(t, p, si, 0), mustFlame(t, p, si, 1.0/1000)
	if pruned.Nodes >= full.Nodes || pruned.Nodes+pruned.Dropped != full.Nodes {
		t.Errorf("pruned %d + dropped %d boxes, full %d", pruned.Nodes, pruned.Dropped, full.Nodes)
	}
	narrow := func(v int64) bool { return float64(v) < float64(pruned.Total)/1000 }
	var count func(n *FlameNode) int
	count = func(n *FlameNode) int {
		c := 1
		for _, k := range n.Children {
			c += count(k)
		}
		return c
	}
	// The boxes of the full tree at least 1/1000 wide, with a parent that is,
	// are the pruned tree's; the others hold Hidden.
	var wide func(n *FlameNode) (int, int64)
	wide = func(n *FlameNode) (int, int64) {
		boxes, hidden := 1, int64(0)
		for _, c := range n.Children {
			if narrow(c.Value) {
				hidden += c.Value
				continue
			}
			b, h := wide(c)
			boxes, hidden = boxes+b, hidden+h
		}
		return boxes, hidden
	}
	boxes, hidden := wide(full.Root)
	if boxes != pruned.Nodes || count(pruned.Root) != pruned.Nodes {
		t.Errorf("the pruned graph has %d boxes (%d in its tree), the full one %d at least 1/1000 wide", pruned.Nodes, count(pruned.Root), boxes)
	}
	if pruned.Hidden != hidden {
		t.Errorf("hidden = %d, the full tree has %d under the cutoff", pruned.Hidden, hidden)
	}
	var check func(n *FlameNode)
	check = func(n *FlameNode) {
		for _, c := range n.Children {
			if narrow(c.Value) {
				t.Fatalf("box %s of %d kept under the cutoff", c.Name, c.Value)
			}
			check(c)
		}
	}
	check(pruned.Root)
}

func TestFlameCapsBoxes(t *testing.T) {
	p := synthProfile(t, 8, 1024) // 65,536 stacks, ~175,000 boxes unpruned
	fg := mustFlame(t, p, 1, 0)
	if fg.Nodes != maxFlameNodes || fg.Dropped == 0 || fg.Hidden == 0 {
		t.Errorf("nodes %d dropped %d hidden %d; want the cap of %d", fg.Nodes, fg.Dropped, fg.Hidden, maxFlameNodes)
	}
	tree, err := p.FlameTree(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fg.Nodes+fg.Dropped != tree.Len() {
		t.Errorf("%d boxes kept and %d dropped of a tree of %d", fg.Nodes, fg.Dropped, tree.Len())
	}
}

func TestDiffFlame(t *testing.T) {
	base := loadFile(t, fixtures.Path(t, "pprof", "parca-self-heap-t0-1644509272.pb.gz"))
	target := loadFile(t, fixtures.Path(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz"))
	si, _ := target.SampleIndex("inuse_space")
	fg, err := DiffFlame(base, target, si, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := Diff(base, target, si)
	if fg.Total != d.TargetTotal || fg.BaseTotal != d.BaseTotal || !fg.Diff {
		t.Errorf("diff flame totals %d/%d, diff %d/%d", fg.BaseTotal, fg.Total, d.BaseTotal, d.TargetTotal)
	}
	// Unpruned, a diff holds every node of both trees, a node at the same
	// place on both sides once: what each side leaves out is nothing.
	bt, _ := base.FlameTree(si, nil)
	tt, _ := target.FlameTree(si, nil)
	cut, err := CutDiffFlame(bt, tt, 0)
	if err != nil {
		t.Fatal(err)
	}
	inTarget, inBase := 0, 0
	for p := range cut.kept {
		if p.t >= 0 {
			inTarget++
		}
		if p.b >= 0 {
			inBase++
		}
	}
	if cut.Dropped != 0 || cut.BaseDropped != 0 || inTarget != tt.Len() || inBase != bt.Len() || cut.Nodes != len(cut.kept) {
		t.Errorf("unpruned diff: %d boxes (%d of the target's %d nodes, %d of the base's %d), dropped %d and %d",
			cut.Nodes, inTarget, tt.Len(), inBase, bt.Len(), cut.Dropped, cut.BaseDropped)
	}
	cpu := loadFile(t, fixtures.Path(t, "pprof", "flameshow-cpu-10s.pb.gz"))
	if _, err := DiffFlame(cpu, target, 0, 0, nil); !isErr(err, analyze.ErrMismatch) {
		t.Errorf("cpu vs heap: %v", err)
	}
	ct, _ := cpu.FlameTree(0, nil)
	if _, err := CutDiffFlame(ct, tt, 0); !isErr(err, analyze.ErrMismatch) {
		t.Errorf("trees of cpu vs heap: %v", err)
	}
}

// TestFlameTreeIgnoresSampleOrder: a profile's tree is the same whatever the
// order of its samples, whether they come in stack order (merged along their
// common prefixes) or scattered (sorted level by level), and whether its
// locations hold inlined frames: the same profiles with their samples
// reversed and shuffled build the same trees node for node.
func TestFlameTreeIgnoresSampleOrder(t *testing.T) {
	inOrder := hostile.ManyStacksShaped(hostile.StackShape{Depth: 6, Hops: 1})
	scattered := hostile.ManyStacksShaped(hostile.StackShape{Depth: 6, Hops: 1, Scattered: true})
	for _, in := range []struct {
		name string
		data []byte
	}{
		{"ManyStacks in stack order", inOrder},
		{"ManyStacks scattered", scattered},
		{"flameshow-heap.pb.gz", readFixture(t, "flameshow-heap.pb.gz")},
		{"parca-fgprof-wallclock.pb.gz", readFixture(t, "parca-fgprof-wallclock.pb.gz")},
		{"erigon-integration-heap.pb.gz", readFixture(t, "erigon-integration-heap.pb.gz")},
	} {
		ref, err := Open(Reader(bytes.NewReader(in.data)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		si := ref.DefaultSampleIndex()
		want, err := ref.FlameTree(si, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, order := range []string{"reversed", "shuffled"} {
			p, err := profile.Parse(bytes.NewReader(in.data))
			if err != nil {
				t.Fatal(err)
			}
			if order == "reversed" {
				slices.Reverse(p.Sample)
			} else {
				rand.New(rand.NewPCG(1, 2)).Shuffle(len(p.Sample), func(i, j int) { p.Sample[i], p.Sample[j] = p.Sample[j], p.Sample[i] })
			}
			var buf bytes.Buffer
			if err := p.Write(&buf); err != nil {
				t.Fatal(err)
			}
			q, err := Open(Reader(&buf), Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := q.FlameTree(si, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := treeDifference(want, got); diff != "" {
				t.Errorf("%s, %s: %s", in.name, order, diff)
			}
		}
	}
}

// treeDifference describes the first difference between two trees, "" when
// they are the same.
func treeDifference(a, b *FlameTree) string {
	if a.Len() != b.Len() || a.Total() != b.Total() || a.abs != b.abs {
		return fmt.Sprintf("%d nodes of total %d (%d), against %d of %d (%d)", a.Len(), a.Total(), a.abs, b.Len(), b.Total(), b.abs)
	}
	for i := range int32(a.Len()) {
		x, y := a.node(i), b.node(i)
		if a.label(i) != b.label(i) || x.value != y.value || x.end != y.end {
			return fmt.Sprintf("node %d: %q %d (subtree to %d), against %q %d (to %d)", i, a.label(i), x.value, x.end, b.label(i), y.value, y.end)
		}
	}
	return ""
}

// readFixture reads a profile fixture's bytes.
func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(fixtures.Path(t, "pprof", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFlameTreeOfADeepStack: a sample 100,000 frames deep (of as many
// functions, more than 16-bit names hold) makes a chain of as many nodes, cut
// and walked without recursion; the cut keeps it whole.
func TestFlameTreeOfADeepStack(t *testing.T) {
	p, err := Open(Reader(bytes.NewReader(hostile.DeepStackProfile())), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tree, err := p.FlameTree(p.DefaultSampleIndex(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if tree.Len() != hostile.DeepFrames+1 || tree.Total() != 4096 {
		t.Fatalf("%d nodes of total %d, want %d of 4096", tree.Len(), tree.Total(), hostile.DeepFrames+1)
	}
	cut := CutFlame(tree, DefaultFlameFraction)
	depth, boxes := 0, 0
	for b := range cut.Walk() {
		if b.Depth != boxes || b.Value != 4096 {
			t.Fatalf("box %d: depth %d, value %d", boxes, b.Depth, b.Value)
		}
		depth, boxes = b.Depth, boxes+1
	}
	if boxes != maxFlameNodes || cut.Dropped != hostile.DeepFrames+1-maxFlameNodes || depth != maxFlameNodes-1 {
		t.Errorf("%d boxes to depth %d, %d dropped; want the cap of %d", boxes, depth, cut.Dropped, maxFlameNodes)
	}
}

// TestFlameTreeInABudget: a tree that does not fit its budget is refused
// with the budget's error, having charged at most the budget, and the budget
// holds nothing afterwards; one that fits holds nothing either.
func TestFlameTreeInABudget(t *testing.T) {
	p := synthProfile(t, 8, 1024)
	tree, err := p.FlameTree(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	small := analyze.NewBudget(tree.MemSize() / 2)
	if _, err := p.FlameTree(1, small); !isErr(err, analyze.ErrBusy) && !isErr(err, analyze.ErrTooLarge) {
		t.Errorf("within %d bytes: %v, want the budget's error", small.Limit(), err)
	}
	enough := analyze.NewBudget(64 << 20)
	if _, err := p.FlameTree(1, enough); err != nil {
		t.Errorf("within 64 MiB: %v", err)
	}
	if small.Used() != 0 || enough.Used() != 0 {
		t.Errorf("the budgets hold %d and %d bytes afterwards", small.Used(), enough.Used())
	}
}

// synthProfile builds a heap-like profile with 4^depth distinct stacks, like the
// shared benchmark generator: recursion through four functions chosen by the digits
// of the stack's number.
func synthProfile(tb testing.TB, depth int, scale int64) *Profile {
	tb.Helper()
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "inuse_objects", Unit: "count"}, {Type: "inuse_space", Unit: "bytes"}},
	}
	fn := make([]*profile.Function, 6)
	loc := make([]*profile.Location, 6)
	for i, name := range []string{"main.a0", "main.a1", "main.a2", "main.a3", "main.step", "main.main"} {
		fn[i] = &profile.Function{ID: uint64(i + 1), Name: name, Filename: "main.go"}
		loc[i] = &profile.Location{ID: uint64(i + 1), Line: []profile.Line{{Function: fn[i], Line: int64(10 + i)}}}
	}
	p.Function, p.Location = fn, loc
	n := 1 << (2 * depth)
	for s := range n {
		stack := []*profile.Location{loc[4]}
		for k, path := 0, s; k < depth; k, path = k+1, path/4 {
			stack = append(stack, loc[path%4], loc[4])
		}
		stack = append(stack, loc[5])
		p.Sample = append(p.Sample, &profile.Sample{Location: stack, Value: []int64{1, scale * int64(1+s%7)}})
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		tb.Fatal(err)
	}
	out, err := Open(Reader(&buf), Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// BenchmarkFlame262k builds the pruned flame graph of 262,144 stacks.
func BenchmarkFlame262k(b *testing.B) {
	p := synthProfile(b, 9, 1024)
	b.ResetTimer()
	for b.Loop() {
		fg := mustFlame(b, p, 1, DefaultFlameFraction)
		if fg.Nodes > maxFlameNodes {
			b.Fatalf("%d boxes", fg.Nodes)
		}
	}
}

// BenchmarkDiff262k diffs two profiles of 262,144 stacks.
func BenchmarkDiff262k(b *testing.B) {
	base, target := synthProfile(b, 9, 1024), synthProfile(b, 9, 2048)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Diff(base, target, 1); err != nil {
			b.Fatal(err)
		}
	}
}
