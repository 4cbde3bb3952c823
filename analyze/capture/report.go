package capture

import (
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/analyze/series"
)

// Capture is one bundle parsed: its manifest and what its steps' outputs say,
// without the outputs themselves.
type Capture struct {
	Manifest Manifest    `json:"manifest"`
	JVM      *JVMCapture `json:"jvm,omitempty"`
	Go       *GoCapture  `json:"go,omitempty"`
}

// Parse reads each step's output of a bundle with its parser; limit caps a
// compressed profile's decompressed size. What the parsed capture keeps is
// charged to budget (nil: unbounded); only the budget's refusal fails it.
func Parse(b *Bundle, limit int64, budget *analyze.Budget) (*Capture, error) {
	c := &Capture{Manifest: b.Manifest}
	var err error
	switch b.Manifest.Kind {
	case KindJVM:
		c.JVM, err = parseJVM(b, budget)
	case KindGo:
		c.Go, err = parseGo(b, limit, budget)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// ReadCapture reads a bundle from r (see Open) and parses it (see Parse). The
// bundle's raw outputs, charged to budget while they are read, are given back
// once parsed: what stays charged is what the capture keeps.
func ReadCapture(r io.Reader, limit int64, lim Limits, budget *analyze.Budget) (*Capture, error) {
	b, err := Open(r, limit, lim, budget)
	if err != nil {
		return nil, err
	}
	c, err := Parse(b, limit, budget)
	budget.Uncharge(min(b.Size(), budget.Used()))
	return c, err
}

// Report is what one or more bundles of one process say: for a JVM, the native
// memory report of its captures (see jvm.AnalyzeNative); for a Go process, its
// snapshots and their series.
type Report struct {
	Kind   Kind   `json:"kind"`
	Target Target `json:"target"`
	// Bundles are the bundles' manifests, oldest first.
	Bundles []Manifest `json:"bundles"`
	// Problems say what steps failed or could not be read, per bundle.
	Problems []string          `json:"problems,omitempty"`
	JVM      *jvm.NativeReport `json:"jvm,omitempty"`
	Captures []*JVMCapture     `json:"jvm_captures,omitempty"`
	Go       *GoReport         `json:"go,omitempty"`
	Verdict  jvm.NativeVerdict `json:"verdict"`
}

// GoReport is a Go process's snapshots, oldest first, and what grew.
type GoReport struct {
	Snapshots []*GoSnapshot `json:"snapshots"`
	// HeapSeries and GoroutineSeries are the series analyses of three or more
	// heap and goroutine profiles; nil with fewer.
	HeapSeries      *series.Report `json:"heap_series,omitempty"`
	GoroutineSeries *series.Report `json:"goroutine_series,omitempty"`
	HeapDelta       int64          `json:"heap_inuse_delta"`
	GoroutinesDelta int64          `json:"goroutines_delta"`
	// Leaked is the last snapshot's goroutineleak total, -1 when not served.
	Leaked int64 `json:"leaked"`
}

// Analyze reports on captures of one process, in the order they were taken.
// Captures of different kinds or processes are ErrMismatch.
func Analyze(caps []*Capture) (*Report, error) {
	if len(caps) == 0 {
		return nil, fmt.Errorf("%w: no capture bundle", analyze.ErrEmpty)
	}
	first := caps[0].Manifest
	for _, c := range caps[1:] {
		m := c.Manifest
		if m.Kind != first.Kind {
			return nil, fmt.Errorf("%w: a %s capture and a %s capture; upload the bundles of one process together", analyze.ErrMismatch, first.Kind, m.Kind)
		}
		if !m.Target.Same(first.Target) {
			return nil, fmt.Errorf("%w: one bundle captured %s, another %s; bundles of one process compare", analyze.ErrMismatch, first.Target, m.Target)
		}
	}
	ordered := slices.Clone(caps)
	slices.SortStableFunc(ordered, func(a, b *Capture) int { return a.Manifest.Started.Compare(b.Manifest.Started) })
	rep := &Report{Kind: first.Kind, Target: first.Target}
	for _, c := range ordered {
		rep.Bundles = append(rep.Bundles, c.Manifest)
		when := c.Manifest.Started.Format("15:04:05")
		for _, s := range c.Manifest.Failed() {
			if s.Name == StepGoroutineLeak {
				continue // not served: reported as such, not as a failure
			}
			rep.Problems = append(rep.Problems, fmt.Sprintf("capture of %s: %s failed: %s", when, s.Name, s.Error))
		}
	}
	switch first.Kind {
	case KindJVM:
		snaps := make([]jvm.NativeSnapshot, len(ordered))
		for i, c := range ordered {
			snaps[i] = c.JVM.Snapshot(&c.Manifest)
			rep.Captures = append(rep.Captures, c.JVM)
			for _, p := range c.JVM.Problems {
				rep.Problems = appendNew(rep.Problems, fmt.Sprintf("capture of %s: %s", c.Manifest.Started.Format("15:04:05"), p))
			}
		}
		rep.JVM = jvm.AnalyzeNative(snaps)
		rep.Verdict = rep.JVM.Verdict
	case KindGo:
		rep.Go = analyzeGo(ordered)
		for _, c := range ordered {
			for _, p := range c.Go.Problems {
				rep.Problems = append(rep.Problems, fmt.Sprintf("capture of %s: %s", c.Manifest.Started.Format("15:04:05"), p))
			}
		}
		rep.Verdict = rep.Go.verdict()
	}
	return rep, nil
}

// appendNew appends s unless the list holds it (a failed step is also a
// problem of its parser).
func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// analyzeGo orders every snapshot of the captures by time and runs the series.
func analyzeGo(caps []*Capture) *GoReport {
	g := &GoReport{Leaked: -1}
	for _, c := range caps {
		g.Snapshots = append(g.Snapshots, c.Go.Snapshots...)
	}
	slices.SortStableFunc(g.Snapshots, func(a, b *GoSnapshot) int { return cmp.Compare(a.Time.UnixNano(), b.Time.UnixNano()) })
	if n := len(g.Snapshots); n > 0 {
		first, last := g.Snapshots[0], g.Snapshots[n-1]
		if first.HeapInuse >= 0 && last.HeapInuse >= 0 {
			g.HeapDelta = last.HeapInuse - first.HeapInuse
		}
		if first.Goroutines >= 0 && last.Goroutines >= 0 {
			g.GoroutinesDelta = last.Goroutines - first.Goroutines
		}
		g.Leaked = last.Leaked
	}
	g.HeapSeries = goSeries(g.Snapshots, func(s *GoSnapshot) *pprof.Profile { return s.Heap })
	g.GoroutineSeries = goSeries(g.Snapshots, func(s *GoSnapshot) *pprof.Profile { return s.Goroutine })
	return g
}

// goSeries is the series of one profile of every snapshot, nil with fewer than
// three or when a snapshot lacks it.
func goSeries(snaps []*GoSnapshot, of func(*GoSnapshot) *pprof.Profile) *series.Report {
	if len(snaps) < 3 {
		return nil
	}
	in := make([]pprof.Snapshot, 0, len(snaps))
	for _, s := range snaps {
		p := of(s)
		if p == nil {
			return nil
		}
		in = append(in, pprof.Snapshot{Name: fmt.Sprintf("snapshot %d (%s)", s.Number, s.Time.Format("15:04:05")), Profile: p})
	}
	rep, err := pprof.Series(in, series.Options{})
	if err != nil {
		return nil
	}
	return rep
}

// verdict is a Go process's finding: goroutines the runtime proved leaked
// first, then steady growth of the heap or of the goroutines.
func (g *GoReport) verdict() jvm.NativeVerdict {
	n := len(g.Snapshots)
	if n == 0 {
		return jvm.NativeVerdict{Sentence: "No snapshot."}
	}
	if g.Leaked > 0 {
		return jvm.NativeVerdict{Leak: true, Cause: "goroutineleak", Sentence: fmt.Sprintf(
			"The Go runtime proved %s goroutines leaked (goroutineleak profile: blocked on what no live goroutine can reach).", analyze.FormatCount(g.Leaked))}
	}
	first, last := g.Snapshots[0], g.Snapshots[n-1]
	figures := fmt.Sprintf("heap in use %s → %s (%s), goroutines %s → %s (%s)",
		analyze.FormatBytes(first.HeapInuse), analyze.FormatBytes(last.HeapInuse), analyze.FormatSignedValue(g.HeapDelta, "bytes"),
		analyze.FormatCount(first.Goroutines), analyze.FormatCount(last.Goroutines), analyze.FormatSignedValue(g.GoroutinesDelta, "count"))
	if s := g.GoroutineSeries; s != nil && s.Verdict == series.Leak {
		return jvm.NativeVerdict{Leak: true, Cause: "goroutines", Sentence: "Goroutines grow steadily: " + s.Reason + " (" + figures + ")."}
	}
	if s := g.HeapSeries; s != nil && s.Verdict == series.Leak {
		return jvm.NativeVerdict{Leak: true, Cause: "heap", Sentence: "The heap grows steadily: " + s.Reason + " (" + figures + ")."}
	}
	switch {
	case n < 3:
		return jvm.NativeVerdict{Sentence: fmt.Sprintf("%d snapshot(s): %s. Three or more make a series with a verdict (-count).", n, figures)}
	case g.HeapSeries != nil && g.HeapSeries.Verdict == series.Inconclusive:
		return jvm.NativeVerdict{Sentence: "Inconclusive: " + g.HeapSeries.Reason + " (" + figures + ")."}
	}
	return jvm.NativeVerdict{Sentence: "No steady growth of the heap or the goroutines over " + fmt.Sprint(n) + " snapshots: " + figures + "."}
}
