package pprof

import (
	"bytes"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/fixtures"
)

// TestFlameAgreesWithTop checks the unpruned flame graph against the top table, an
// independent aggregation that itself matches pprof: a function's cum is the sum of
// its boxes that have no ancestor of the same name, and its flat is the sum of its
// boxes' self values.
func TestFlameAgreesWithTop(t *testing.T) {
	for _, name := range []string{"flameshow-heap.pb.gz", "parca-fgprof-wallclock.pb.gz", "goprofnotes-goroutine-snap2-debug0.pb.gz", "google-pprof-cppbench-legacy-text-heapz_v2.heap"} {
		p := loadFile(t, fixtures.Path(t, "pprof", name))
		si := p.DefaultSampleIndex()
		fg := p.Flame(si, 0)
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

func TestFlamePrunesNarrowBoxes(t *testing.T) {
	p := loadFile(t, fixtures.Path(t, "pprof", "erigon-integration-heap.pb.gz"))
	si := p.DefaultSampleIndex()
	full, pruned := p.Flame(si, 0), p.Flame(si, 1.0/1000)
	if pruned.Nodes >= full.Nodes || pruned.Nodes+pruned.Dropped != full.Nodes {
		t.Errorf("pruned %d + dropped %d boxes, full %d", pruned.Nodes, pruned.Dropped, full.Nodes)
	}
	cutoff := int64(float64(pruned.Total) / 1000)
	var check func(n *FlameNode)
	check = func(n *FlameNode) {
		for _, c := range n.Children {
			if c.Value < cutoff {
				t.Fatalf("box %s of %d kept under the cutoff %d", c.Name, c.Value, cutoff)
			}
			check(c)
		}
	}
	check(pruned.Root)
	// Hidden is what the full tree has in boxes under the cutoff whose parent is not.
	var hidden func(n *FlameNode) int64
	hidden = func(n *FlameNode) int64 {
		var h int64
		for _, c := range n.Children {
			if c.Value < cutoff {
				h += c.Value
			} else {
				h += hidden(c)
			}
		}
		return h
	}
	if want := hidden(full.Root); pruned.Hidden != want {
		t.Errorf("hidden = %d, the full tree has %d under the cutoff", pruned.Hidden, want)
	}
}

func TestFlameCapsBoxes(t *testing.T) {
	p := synthProfile(t, 8, 1024) // 65,536 stacks, ~175,000 boxes unpruned
	fg := p.Flame(1, 0)
	if fg.Nodes != maxFlameNodes || fg.Dropped == 0 || fg.Hidden == 0 {
		t.Errorf("nodes %d dropped %d hidden %d; want the cap of %d", fg.Nodes, fg.Dropped, fg.Hidden, maxFlameNodes)
	}
}

func TestDiffFlame(t *testing.T) {
	base := loadFile(t, fixtures.Path(t, "pprof", "parca-self-heap-t0-1644509272.pb.gz"))
	target := loadFile(t, fixtures.Path(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz"))
	si, _ := target.SampleIndex("inuse_space")
	fg, err := DiffFlame(base, target, si, 0)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := Diff(base, target, si)
	if fg.Total != d.TargetTotal || fg.BaseTotal != d.BaseTotal || !fg.Diff {
		t.Errorf("diff flame totals %d/%d, diff %d/%d", fg.BaseTotal, fg.Total, d.BaseTotal, d.TargetTotal)
	}
	cpu := loadFile(t, fixtures.Path(t, "pprof", "flameshow-cpu-10s.pb.gz"))
	if _, err := DiffFlame(cpu, target, 0, 0); !isErr(err, analyze.ErrMismatch) {
		t.Errorf("cpu vs heap: %v", err)
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
	out, err := Load(&buf, 0)
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
		fg := p.Flame(1, DefaultFlameFraction)
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
