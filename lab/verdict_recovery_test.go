package lab

import (
	"strings"
	"testing"
)

// TestRecoveryVerdictOneOffHeapFigure: a leaky gzip recovery's reason is one
// sentence naming one off-heap figure, the resident bytes; the mapped bytes and
// RSS − heap in use go to the details, each labelled.
func TestRecoveryVerdictOneOffHeapFigure(t *testing.T) {
	spec := Spec{Workload: WorkloadRecovery, Variant: "leaky", Codec: "gzip"}
	p := Progress{
		Points: []Point{{Step: 1, Goroutines: 4, HeapInuse: 4 << 20, RSS: 32 << 20}, {Step: 20, Goroutines: 4, HeapInuse: 49 << 20, RSS: 115 << 20}},
		Counters: map[string]int64{"iterators_opened": 4980, "iterators_closed": 0, "offheap_bytes": 4980 * 40 << 10,
			"offheap_resident_bytes": 61194240, "jvm_bytes_per_open_stream": 12448},
	}
	v, reason, details := decide(spec, p)
	if v != VerdictLeak || reason != "4980 deep iterators opened and 0 closed: the 4980 left open hold 58.4 MB resident outside the Go heap." {
		t.Errorf("verdict %s, reason %q", v, reason)
	}
	if n := strings.Count(reason, ". ") + 1; n != 1 || strings.Count(reason, " MB") != 1 {
		t.Errorf("the reason has %d sentences and %d byte figures: %q", n, strings.Count(reason, " MB"), reason)
	}
	all := strings.Join(details, "\n")
	for _, want := range []string{"Off-heap resident (the verdict's figure): 58.4 MB", "Off-heap mapped: 194.5 MB", "RSS − Go heap in use: 38.0 MB", "12.2 kB in a JVM (the figure from the JVM"} {
		if !strings.Contains(all, want) {
			t.Errorf("details lack %q:\n%s", want, all)
		}
	}
}

// TestTitleNamesTheBugAndTheCode: a run's title says which upstream bug it
// reproduces and whether it runs the leaky code or a fix.
func TestTitleNamesTheBugAndTheCode(t *testing.T) {
	for name, want := range map[string]string{
		"samza-2785-production": "SAMZA-2785, leaky: checkpoint storm leaky/active, 1741 rebalances × 4 tasks",
		"samza-2785-pr1674":     "SAMZA-2785, fixed by pr1674: checkpoint storm pr1674/active, 1741 rebalances × 4 tasks",
		"kafka-3933-gzip-leaky": "KAFKA-3933, leaky: recovery leaky/gzip v0, 1 partition × 20 segments × 500 batches",
		"kafka-3933-gzip-drain": "KAFKA-3933, fixed by drain (0.10.0.1): recovery drain/gzip v0, 1 partition × 20 segments × 500 batches",
	} {
		p, ok := PresetByName(name)
		if !ok {
			t.Fatalf("no preset %s", name)
		}
		if got := p.Spec.Title(); got != want {
			t.Errorf("%s: title %q, want %q", name, got, want)
		}
	}
}
