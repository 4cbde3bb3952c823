package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/hprof"
)

// hprofProgressMin is the size from which `leakui hprof -progress auto` writes
// progress lines where stderr is not a terminal.
const hprofProgressMin = 64 << 20

// hprofProgress shows a heap dump analysis's progress on stderr: on a terminal,
// one line redrawn in place at most ten times a second (a bar, the stage, the
// bytes of the dump read and the time left); elsewhere, a plain line at each
// stage and every ten seconds. With verbose, each line also gives the Go heap
// and the process's resident set and peak.
type hprofProgress struct {
	mu      sync.Mutex
	w       io.Writer
	bar     bool
	verbose bool
	start   time.Time
	last    time.Time
	stage   string
	next    float64 // with verbose and no bar, the fraction of the stage that gets a line of its own
	drawn   bool
}

// newHprofProgress returns the progress for mode ("auto", "always", "never"),
// nil for none.
func newHprofProgress(w io.Writer, mode string, size int64, verbose bool) *hprofProgress {
	p := &hprofProgress{w: rawWriter(w), verbose: verbose, start: time.Now()}
	switch {
	case mode == "never" && !verbose:
		return nil
	case mode == "never":
		return p
	case isTerminal(p.w):
		p.bar = true
	case mode == "auto" && size < hprofProgressMin && !verbose:
		return nil
	}
	return p
}

// update shows one report.
func (p *hprofProgress) update(pr hprof.Progress) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	changed := pr.Stage != p.stage
	if changed {
		p.next = 0.1
	}
	p.stage = pr.Stage
	tenth := p.verbose && !p.bar && pr.Done >= p.next
	if tenth {
		p.next = float64(int(pr.Done*10)+1) / 10
	}
	switch {
	case p.bar && !changed && now.Sub(p.last) < 100*time.Millisecond:
		return
	case !p.bar && !changed && !tenth && now.Sub(p.last) < 10*time.Second:
		return
	}
	p.last = now
	line := hprofProgressLine(pr, now.Sub(p.start))
	if p.verbose {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		rss, peak := residentSet()
		line += fmt.Sprintf("  heap %s, resident %s, peak %s", analyze.FormatBytes(int64(m.HeapInuse)), analyze.FormatBytes(rss), analyze.FormatBytes(peak))
	}
	if p.bar {
		fmt.Fprintf(p.w, "\r%s\x1b[K", line)
		p.drawn = true
		return
	}
	fmt.Fprintf(p.w, "leakui hprof: %s\n", line)
}

// done ends the bar's line, or writes the last plain line.
func (p *hprofProgress) done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	took := time.Since(p.start).Round(10 * time.Millisecond)
	rss := ""
	if p.verbose {
		_, peak := residentSet()
		rss = fmt.Sprintf(", peak resident %s", analyze.FormatBytes(peak))
	}
	if p.bar {
		fmt.Fprintf(p.w, "\r\x1b[Kanalyzed in %s%s\n", took, rss)
		return
	}
	fmt.Fprintf(p.w, "leakui hprof: analyzed in %s%s\n", took, rss)
}

// hprofProgressLine renders one report, such as
// "[#######.............]  35% references  412.1 MB / 1.1 GB  0:09 left".
func hprofProgressLine(pr hprof.Progress, elapsed time.Duration) string {
	const width = 20
	filled := min(int(pr.Overall*width), width)
	var b strings.Builder
	fmt.Fprintf(&b, "[%s%s] %3.0f%% %-11s", strings.Repeat("#", filled), strings.Repeat(".", width-filled), 100*pr.Overall, pr.Stage)
	if pr.Read > 0 {
		fmt.Fprintf(&b, " %s / %s", analyze.FormatBytes(pr.Read), analyze.FormatBytes(pr.Size))
	} else {
		fmt.Fprintf(&b, " %3.0f%% of the stage", 100*pr.Done)
	}
	if pr.Overall >= 0.03 && elapsed > time.Second {
		left := time.Duration(float64(elapsed) * (1 - pr.Overall) / pr.Overall).Round(time.Second)
		fmt.Fprintf(&b, "  %d:%02d left", int(left.Minutes()), int(left.Seconds())%60)
	}
	return b.String()
}
