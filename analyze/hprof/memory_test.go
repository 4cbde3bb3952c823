package hprof

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze"
)

// reportJSON is a report as JSON.
func reportJSON(t *testing.T, rep *Report) string {
	t.Helper()
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// openBudget opens dump under budget and makes its report.
func openBudget(t *testing.T, dump string, budget *analyze.Budget) (*Heap, *Report, error) {
	t.Helper()
	h, err := Open(dump, OpenOptions{TempDir: t.TempDir(), Options: Options{Budget: budget}})
	if err != nil {
		return nil, nil, err
	}
	rep, err := h.NewReport(ReportOptions{}, nil)
	if err != nil {
		h.Close()
		return nil, nil, err
	}
	return h, rep, nil
}

// TestParseUnderABudget analyzes a real dump under budgets from a tenth of what it
// needs to all of it: each fails with ErrTooLarge naming the limit and gives back
// every byte, or gives the report made without a budget; a server budget other
// analyses hold fails with ErrBusy.
func TestParseUnderABudget(t *testing.T) {
	jh := runJava(t, "LeakShape", true, []string{"-XX:+UseSerialGC", "-Xmx64m"}, "3", "4096", "30", "10")
	h, rep, err := openBudget(t, jh.Dump, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := reportJSON(t, rep)
	h.Close()

	server := analyze.NewBudget(1 << 40)
	budget := server.Child(0)
	h, rep, err = openBudget(t, jh.Dump, budget)
	if err != nil {
		t.Fatal(err)
	}
	if got := reportJSON(t, rep); got != want {
		t.Errorf("the report under a budget differs from the one without")
	}
	peak, held := h.mem.peak, budget.Used()
	parsed := parsedCharge(t, jh.Dump)
	t.Logf("%d objects: %s charged at the peak, %s held after the analysis", h.Objects(), analyze.FormatBytes(peak), analyze.FormatBytes(held))
	if held <= 0 || peak < held || server.Used() != held {
		t.Fatalf("peak %d, held %d, the server's budget %d", peak, held, server.Used())
	}
	h.Close()
	if budget.Used() != 0 || server.Used() != 0 {
		t.Fatalf("after Close: %d and %d bytes still charged", budget.Used(), server.Used())
	}

	// Budgets from a tenth of the peak to all of it, and two that the parse fits
	// in but not the analysis.
	var limits []int64
	for k := int64(1); k <= 10; k++ {
		limits = append(limits, peak*k/10)
	}
	limits = append(limits, parsed+(peak-parsed)/4, parsed+(peak-parsed)/2)
	slices.Sort(limits)
	for _, limit := range limits {
		k := 100 * limit / peak
		budget := server.Child(limit)
		start := time.Now()
		h, rep, err := openBudget(t, jh.Dump, budget)
		if limit == peak {
			if err != nil {
				t.Fatalf("under the peak it charged (%d bytes): %v", limit, err)
			}
			if got := reportJSON(t, rep); got != want {
				t.Errorf("the report under a budget of exactly the peak differs")
			}
			h.Close()
		} else {
			if !errors.Is(err, analyze.ErrTooLarge) || !strings.Contains(err.Error(), analyze.FormatBytes(limit)) {
				t.Fatalf("under %d bytes (%d%% of the peak): %v", limit, k, err)
			}
			t.Logf("%d%% of the peak: refused after %v: %v", k, time.Since(start).Round(time.Millisecond), err)
		}
		if budget.Used() != 0 || server.Used() != 0 {
			t.Fatalf("%d%% of the peak: %d and %d bytes still charged", k, budget.Used(), server.Used())
		}
	}

	// Analyze refused at each of its stages leaves the parsed heap as it was (and
	// its charge), and runs once the budget has room. Its own peak (the
	// report's may be higher) is measured first.
	var analyzePeak int64
	{
		h, err := Open(jh.Dump, OpenOptions{TempDir: t.TempDir(), Options: Options{Budget: server.Child(0)}})
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Analyze(nil); err != nil {
			t.Fatal(err)
		}
		analyzePeak = h.mem.peak
		h.Close()
	}
	for k := int64(1); k <= 9; k++ {
		budget := server.Child(peak)
		h, err := Open(jh.Dump, OpenOptions{TempDir: t.TempDir(), Options: Options{Budget: budget}})
		if err != nil {
			t.Fatal(err)
		}
		parsed := budget.Used()
		room := (analyzePeak - parsed) * k / 10
		other := peak - parsed - room // held by something else of the same analysis
		if err := budget.Charge(other); err != nil {
			t.Fatal(err)
		}
		err = h.Analyze(nil)
		if !errors.Is(err, analyze.ErrTooLarge) || budget.Used() != parsed+other {
			t.Fatalf("Analyze with %d%% of the room it needs: %v; %d bytes charged, %d before", 10*k, err, budget.Used(), parsed+other)
		}
		t.Logf("Analyze with %d%% of the room it needs: %v", 10*k, err)
		budget.Uncharge(other)
		rep, err := h.NewReport(ReportOptions{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := reportJSON(t, rep); got != want {
			t.Errorf("the report after a refused Analyze differs")
		}
		h.Close()
		if budget.Used() != 0 || server.Used() != 0 {
			t.Fatalf("%d and %d bytes still charged", budget.Used(), server.Used())
		}
	}

	// The server's budget held by other analyses.
	busy := analyze.NewBudget(peak)
	if err := busy.Charge(peak / 2); err != nil {
		t.Fatal(err)
	}
	if _, _, err := openBudget(t, jh.Dump, busy.Child(0)); !errors.Is(err, analyze.ErrBusy) {
		t.Fatalf("with half the server's budget held by others: %v", err)
	}
	if busy.Used() != peak/2 {
		t.Fatalf("the server's budget holds %d, the others %d", busy.Used(), peak/2)
	}
}

// TestBudgetChargesWhatTheHeapHolds compares what a heap holds of its budget after
// the analysis with how much the Go heap grew for it (measured, logged; asserted
// only loosely: the charge is at least half the growth).
func TestBudgetChargesWhatTheHeapHolds(t *testing.T) {
	h, _, _, dump := leakShapeHeap(t, false)
	h.Close()
	budget := analyze.NewBudget(0).Child(0)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	h, err := Open(dump, OpenOptions{TempDir: t.TempDir(), Options: Options{Budget: budget}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.Analyze(nil); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	charged := budget.Used()
	t.Logf("%d objects, %d references: charged %s (peak %s), the Go heap grew %s (%.0f%% charged); %.1f bytes an object",
		h.Objects(), len(h.out.targets), analyze.FormatBytes(charged), analyze.FormatBytes(h.mem.peak),
		analyze.FormatBytes(grew), 100*float64(charged)/float64(grew), float64(grew)/float64(h.Objects()))
	if charged < grew/2 {
		t.Errorf("charged %d bytes, less than half the %d the Go heap grew", charged, grew)
	}
	runtime.KeepAlive(h)
}

// parsedCharge is what the heap of dump holds of its budget after Parse, before
// Analyze.
func parsedCharge(t *testing.T, dump string) int64 {
	t.Helper()
	budget := analyze.NewBudget(0).Child(0)
	h, err := Open(dump, OpenOptions{TempDir: t.TempDir(), Options: Options{Budget: budget}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	return budget.Used()
}

// TestBudgetAfterAPanickingProgress unwinds Parse and Analyze by a panic from the
// progress callback (as a server closing does) at each stage: nothing stays
// charged beyond the parsed heap, and the inflated copy of the dump is removed.
func TestBudgetAfterAPanickingProgress(t *testing.T) {
	jh := runJava(t, "LeakShape", true, []string{"-XX:+UseSerialGC", "-Xmx64m"}, "3", "4096", "30", "10")
	type stop struct{}
	panicAt := func(stage string) func(string, float64) {
		return func(s string, _ float64) {
			if s == stage {
				panic(stop{})
			}
		}
	}
	unwinds := func(f func()) (stopped bool) {
		defer func() {
			if p := recover(); p != nil {
				if _, ok := p.(stop); !ok {
					panic(p)
				}
				stopped = true
			}
		}()
		f()
		return false
	}
	for _, stage := range []string{"read", "index", "references"} {
		budget := analyze.NewBudget(0).Child(0)
		tmp := t.TempDir()
		if !unwinds(func() {
			Open(jh.Dump, OpenOptions{TempDir: tmp, Options: Options{Budget: budget, Progress: panicAt(stage)}})
		}) {
			t.Fatalf("Parse did not reach %q", stage)
		}
		if budget.Used() != 0 {
			t.Errorf("Parse unwound at %q: %d bytes still charged", stage, budget.Used())
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("Parse unwound at %q left %d files in its TempDir", stage, len(left))
		}
	}
	for _, stage := range []string{"dominators", "retained", "paths"} {
		budget := analyze.NewBudget(0).Child(0)
		h, err := Open(jh.Dump, OpenOptions{TempDir: t.TempDir(), Options: Options{Budget: budget}})
		if err != nil {
			t.Fatal(err)
		}
		parsed := budget.Used()
		if !unwinds(func() { h.Analyze(panicAt(stage)) }) {
			t.Fatalf("Analyze did not reach %q", stage)
		}
		if budget.Used() != parsed {
			t.Errorf("Analyze unwound at %q: %d bytes charged, %d after Parse", stage, budget.Used(), parsed)
		}
		if err := h.Analyze(nil); err != nil {
			t.Fatal(err)
		}
		h.Close()
		if budget.Used() != 0 {
			t.Errorf("%d bytes charged after Close", budget.Used())
		}
	}
}

// TestParseCancelled cancels Options.Context from the progress callback at each
// stage of Parse and Analyze (as a server closing does), and before Open inflates
// a compressed dump: each stops with an error wrapping context.Canceled, gives
// back what it charged (Parse everything, Analyze all beyond the parsed heap) and
// leaves no file in its TempDir; the heap analyzes fully with a live context.
func TestParseCancelled(t *testing.T) {
	jh := runJava(t, "LeakShape", true, []string{"-XX:+UseSerialGC", "-Xmx64m"}, "3", "4096", "30", "10")
	cancelAt := func(stage string) (context.Context, func(string, float64)) {
		ctx, cancel := context.WithCancel(t.Context())
		t.Cleanup(cancel)
		return ctx, func(s string, _ float64) {
			if s == stage {
				cancel()
			}
		}
	}
	for _, stage := range []string{"", "read", "index", "references"} {
		budget := analyze.NewBudget(0).Child(0)
		tmp := t.TempDir()
		ctx, progress := cancelAt(stage)
		if stage == "" {
			progress("", 0) // cancelled before the dump is inflated
		}
		h, err := Open(jh.Dump, OpenOptions{TempDir: tmp, Options: Options{Budget: budget, Progress: progress, Context: ctx}})
		if !errors.Is(err, context.Canceled) || h != nil {
			t.Fatalf("Parse cancelled at %q: %v", stage, err)
		}
		if budget.Used() != 0 {
			t.Errorf("Parse cancelled at %q: %d bytes still charged", stage, budget.Used())
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("Parse cancelled at %q left %d files in its TempDir", stage, len(left))
		}
	}
	for _, stage := range []string{"dominators", "retained", "paths", "histogram", "suspects", "names"} {
		budget := analyze.NewBudget(0).Child(0)
		ctx, progress := cancelAt(stage)
		h, err := Open(jh.Dump, OpenOptions{TempDir: t.TempDir(), Options: Options{Budget: budget, Context: ctx}})
		if err != nil {
			t.Fatal(err)
		}
		parsed := budget.Used()
		if _, err := h.NewReport(ReportOptions{}, progress); !errors.Is(err, context.Canceled) {
			t.Fatalf("NewReport cancelled at %q: %v", stage, err)
		}
		if stage == "dominators" || stage == "retained" || stage == "paths" {
			if budget.Used() != parsed {
				t.Errorf("Analyze cancelled at %q: %d bytes charged, %d after Parse", stage, budget.Used(), parsed)
			}
		}
		h.Close()
		if budget.Used() != 0 {
			t.Errorf("cancelled at %q: %d bytes charged after Close", stage, budget.Used())
		}
	}
}
