package watcher

import (
	"bytes"
	"fmt"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/watch"
)

// decision is a watch's verdict over the snapshots it holds.
type decision struct {
	verdict       watch.Verdict
	suspect       string
	growthPerHour float64
	// window is the time from the first to the last snapshot decided over.
	window time.Duration
	unit   string
	reason string
}

// profiles are the profiles a snapshot holds, in the order their verdicts
// are preferred when they tie: the Go runtime's proof first, then the heap,
// then the goroutines.
var profiles = []struct {
	name string
	of   func(store.WatchSnapshot) []byte
}{
	{"goroutineleak", func(s store.WatchSnapshot) []byte { return s.GoroutineLeak }},
	{"heap", func(s store.WatchSnapshot) []byte { return s.Heap }},
	{"goroutine", func(s store.WatchSnapshot) []byte { return s.Goroutine }},
}

// minSnapshots is the fewest snapshots a series is analyzed over.
const minSnapshots = 3

// verdictOf maps a series verdict to a watch's.
func verdictOf(v series.Verdict) watch.Verdict {
	switch v {
	case series.Leak:
		return watch.Leak
	case series.Inconclusive:
		return watch.Inconclusive
	}
	return watch.NoLeak
}

// decide runs the series analysis over the window since the target last
// restarted (sinceRestart), once per profile (the goroutineleak profile only
// over the snapshots that hold one, and only when there are three or more),
// and keeps the most severe verdict: leak, then inconclusive, then no leak.
// With fewer than three snapshots the verdict is inconclusive.
func decide(snaps []store.WatchSnapshot, every time.Duration, limit int64, budget *analyze.Budget) (decision, error) {
	start, err := sinceRestart(snaps, limit, budget)
	if err != nil {
		return decision{}, err
	}
	restarted := ""
	if start > 0 {
		restarted = fmt.Sprintf(" The target restarted between %s and %s (the bytes it allocated since it started fell), so the window starts at %s.",
			snaps[start-1].Tick.UTC().Format(time.RFC3339), snaps[start].Tick.UTC().Format(time.RFC3339), snaps[start].Tick.UTC().Format(time.RFC3339))
		snaps = snaps[start:]
	}
	if len(snaps) < minSnapshots {
		return decision{verdict: watch.Inconclusive, reason: fmt.Sprintf("%d of the %d snapshots a series needs are taken; the verdict forms from %d on.%s",
			len(snaps), minSnapshots, watch.MinKeep, restarted)}, nil
	}
	best, err := decideWindow(snaps, every, limit, budget)
	best.reason += restarted
	return best, err
}

// sinceRestart returns the index of the first snapshot of the target's
// current process: the one after the last whose heap profile counts fewer
// bytes allocated since the program started (alloc_space, which only grows
// in one process) than the snapshot before. A restart makes whatever the
// program held start again, so growth across it means nothing.
func sinceRestart(snaps []store.WatchSnapshot, limit int64, budget *analyze.Budget) (int, error) {
	start := 0
	prev := int64(-1)
	for i, s := range snaps {
		p, err := pprof.Open(pprof.Reader(bytes.NewReader(s.Heap)), pprof.Options{Limit: limit, Budget: budget})
		if err != nil {
			return 0, fmt.Errorf("the heap profile of %s: %w", s.Tick.Format(time.RFC3339), err)
		}
		total := int64(-1)
		if si, err := p.SampleIndex("alloc_space"); err == nil {
			if top, err := p.Top(si); err == nil {
				total = top.Total
			}
		}
		p.Close()
		if total >= 0 && prev >= 0 && total < prev {
			start = i
		}
		prev = total
	}
	return start, nil
}

// decideWindow is decide over snapshots of one process.
func decideWindow(snaps []store.WatchSnapshot, every time.Duration, limit int64, budget *analyze.Budget) (decision, error) {
	var best decision
	for _, p := range profiles {
		var in []pprof.Snapshot
		for _, s := range snaps {
			b := p.of(s)
			if len(b) == 0 {
				continue
			}
			prof, err := pprof.Open(pprof.Reader(bytes.NewReader(b)), pprof.Options{Limit: limit, Budget: budget})
			if err == nil && budget != nil {
				if err = budget.Charge(prof.MemSize()); err != nil {
					prof.Close()
				}
			}
			if err != nil {
				release(in, budget)
				return decision{}, fmt.Errorf("the %s profile of %s: %w", p.name, s.Tick.Format(time.RFC3339), err)
			}
			in = append(in, pprof.Snapshot{Name: s.Tick.UTC().Format(time.RFC3339), Profile: prof})
		}
		if len(in) < minSnapshots {
			release(in, budget)
			continue
		}
		rep, err := pprof.Series(in, series.Options{})
		release(in, budget)
		if err != nil {
			return decision{}, fmt.Errorf("the %s series: %w", p.name, err)
		}
		d := decision{verdict: verdictOf(rep.Verdict), unit: rep.Unit, reason: p.name + ": " + rep.Reason,
			window: snaps[len(snaps)-1].Tick.Sub(snaps[0].Tick)}
		var top *series.Suspect
		switch {
		case len(rep.Suspects) > 0:
			top = &rep.Suspects[0]
		case d.verdict == watch.Inconclusive && len(rep.Growers) > 0:
			top = &rep.Growers[0]
		}
		if top != nil {
			d.suspect = top.Name
			if top.SlopePerMinute != nil {
				d.growthPerHour = *top.SlopePerMinute * 60
			} else if every > 0 {
				d.growthPerHour = top.Slope * float64(time.Hour) / float64(every)
			}
		}
		if d.verdict.Severity() > best.verdict.Severity() {
			best = d
		}
	}
	return best, nil
}

// release closes the profiles and gives back what they were charged.
func release(snaps []pprof.Snapshot, budget *analyze.Budget) {
	for _, s := range snaps {
		if budget != nil {
			budget.Uncharge(s.Profile.MemSize())
		}
		s.Profile.Close()
	}
}
