package pprof

import (
	"runtime"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze"
)

// TestFilterChargesTheCopy: a filter that drops samples copies the ones
// it keeps, and the copy is charged to the budget before it is allocated: within
// a budget smaller than the copy the filter is refused with ErrTooLarge naming the
// limit, having allocated about the budget; within one that fits it gives what
// Filter gives, and the copy stays charged (at least its samples, at most a few
// times them) until the budget is released. A filter that keeps every sample
// whole charges only its frames.
func TestFilterChargesTheCopy(t *testing.T) {
	p := synthProfile(t, 9, 1024)
	focus, err := CompileFilter("main\\.a1", "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := p.Filter(focus, nil)
	if err != nil {
		t.Fatal(err)
	}
	kept := want.MemSize()

	server := analyze.NewBudget(1 << 40)
	const limit = 1 << 20
	small := server.Child(limit)
	runtime.GC()
	before := allocated()
	_, _, err = p.Filter(focus, small)
	grew := allocated() - before
	if !isErr(err, analyze.ErrTooLarge) || !strings.Contains(err.Error(), "memory budget of 1.0 MB") {
		t.Fatalf("a copy of %d bytes within 1 MB: %v, want ErrTooLarge naming 1.0 MB", kept, err)
	}
	if grew > 2*limit {
		t.Errorf("allocated %d bytes before refusing, more than twice the budget", grew)
	}
	small.Release()

	big := server.Child(1 << 30)
	got, m, err := p.Filter(focus, big)
	if err != nil || !m.Focus {
		t.Fatalf("within 1 GB: %v, matches %+v", err, m)
	}
	if got.graph.samples() != want.graph.samples() || got.SampleTypes()[1].Total != want.SampleTypes()[1].Total {
		t.Errorf("within a budget: %d samples, total %d; unbounded: %d, %d", got.graph.samples(), got.SampleTypes()[1].Total, want.graph.samples(), want.SampleTypes()[1].Total)
	}
	samples := kept - int64(len(p.graph.names))*24
	for _, n := range p.graph.names {
		samples -= 16 + int64(len(n))
	}
	if used := big.Used(); used < samples/2 || used > 4*kept {
		t.Errorf("the copy is charged %d bytes; its samples hold about %d, all of it %d", used, samples, kept)
	}
	big.Release()

	whole, err := CompileFilter("", "", "no_such_frame", "")
	if err != nil {
		t.Fatal(err)
	}
	b := server.Child(1 << 30)
	if _, _, err := p.Filter(whole, b); err != nil || b.Used() >= kept/4 {
		t.Errorf("a filter that keeps every sample: %v, charged %d of the profile's %d", err, b.Used(), kept)
	}
	b.Release()
	if server.Used() != 0 {
		t.Errorf("the server holds %d after the releases", server.Used())
	}
}

// BenchmarkFilter262k focuses the profile of 262,144 stacks on one function,
// which copies the samples it keeps.
func BenchmarkFilter262k(b *testing.B) {
	p := synthProfile(b, 9, 1024)
	focus, err := CompileFilter("main\\.a1", "", "", "")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if fp, _, _ := p.Filter(focus, nil); fp.graph.samples() == 0 {
			b.Fatal("nothing kept")
		}
	}
}
