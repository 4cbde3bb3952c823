package watch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/watch"
)

// profiles are the profiles a snapshot holds, in the order the watcher
// prefers their verdicts: the Go runtime's proof first, then the heap, then
// the goroutines.
var profiles = []struct {
	name string
	of   func(store.WatchSnapshot) []byte
}{
	{"goroutineleak", func(s store.WatchSnapshot) []byte { return s.GoroutineLeak }},
	{"heap", func(s store.WatchSnapshot) []byte { return s.Heap }},
	{"goroutine", func(s store.WatchSnapshot) []byte { return s.Goroutine }},
}

// bundle names the capture bundle a JVM watch's snapshot holds instead of
// profiles: it is listed and downloaded, never analyzed as a profile.
const bundle = "bundle"

// profileOf returns the bytes of the named profile of s; ok is false for a
// name that is no profile.
func profileOf(s store.WatchSnapshot, name string) (b []byte, ok bool) {
	if name == bundle {
		return s.Bundle, true
	}
	for _, p := range profiles {
		if p.name == name {
			return p.of(s), true
		}
	}
	return nil, false
}

// maxProfileBytes bounds a profile once decompressed: the watcher's default
// of 16 MiB a profile as served, inflated 8 times.
const maxProfileBytes = 8 * (16 << 20)

// minSeries is the fewest snapshots a series is analyzed over.
const minSeries = 3

// Analysis is what the pages show of the snapshots a watch holds: each
// profile's series analysis (over the snapshots that hold one, when three or
// more do) and the snapshots themselves, without their bytes.
type Analysis struct {
	// Series are the analyses, in the order of profiles.
	Series []ProfileSeries
	// Snapshots are the snapshots held, oldest first.
	Snapshots []SnapshotInfo
	// Bytes is what the snapshots held weigh.
	Bytes int64
}

// ProfileSeries is the series analysis of one profile over the snapshots.
type ProfileSeries struct {
	Profile string
	Report  *series.Report
}

// SnapshotInfo is one snapshot held: its tick and the bytes of each profile
// (absent: 0).
type SnapshotInfo struct {
	Tick    time.Time
	TakenAt time.Time
	Sizes   map[string]int
}

// cost is what an analysis kept in the cache holds, roughly: its numbers.
func (a *Analysis) cost() int64 {
	n := int64(256 + 128*len(a.Snapshots))
	for _, s := range a.Series {
		n += int64(64 * len(s.Report.Totals))
		for _, list := range [][]series.Suspect{s.Report.Suspects, s.Report.Growers, s.Report.Shrinkers} {
			for _, sp := range list {
				n += int64(len(sp.Name) + 16*len(sp.Values) + 256)
				for _, st := range sp.Stacks {
					n += int64(16 * len(st.Values))
					for _, f := range st.Frames {
						n += int64(len(f) + 16)
					}
				}
			}
		}
	}
	return n
}

// Cost is what an analysis costs a cache that keeps it (for the web root's
// sized cache).
func Cost(a *Analysis) int64 { return a.cost() }

// cacheKey names the analysis of a watch as of its last scrape: a new
// snapshot always comes with a new scrape.
func cacheKey(st watch.Status) string {
	return st.Name + "\x00" + strconv.FormatInt(st.LastScrape.UnixNano(), 10) + "\x00" + strconv.Itoa(st.Snapshots)
}

// analysis returns the analysis of a watch's snapshots, from the cache when
// the watch has not scraped since.
func (rs Resource) analysis(ctx context.Context, st watch.Status) (*Analysis, error) {
	key := cacheKey(st)
	if rs.Cache != nil {
		if a, ok := rs.Cache.Get(key); ok {
			return a, nil
		}
	}
	snaps, err := rs.Source.WatchSnapshots(ctx, st.Name)
	if err != nil {
		return nil, err
	}
	budget := rs.Budget()
	defer budget.Release()
	a, err := analyzeSnapshots(snaps, budget)
	if err != nil {
		return nil, err
	}
	if rs.Cache != nil {
		rs.Cache.Add(key, a)
	}
	return a, nil
}

// analyzeSnapshots runs the series analysis of each profile over the
// snapshots, charging budget with the snapshots' bytes and the profiles
// held while it runs.
func analyzeSnapshots(snaps []store.WatchSnapshot, budget *analyze.Budget) (*Analysis, error) {
	a := &Analysis{}
	for _, s := range snaps {
		a.Bytes += s.Size()
		info := SnapshotInfo{Tick: s.Tick, TakenAt: s.TakenAt, Sizes: map[string]int{}}
		for _, p := range profiles {
			if n := len(p.of(s)); n > 0 {
				info.Sizes[p.name] = n
			}
		}
		if n := len(s.Bundle); n > 0 {
			info.Sizes[bundle] = n
		}
		a.Snapshots = append(a.Snapshots, info)
	}
	if err := budget.Charge(a.Bytes); err != nil {
		return nil, err
	}
	defer budget.Uncharge(a.Bytes)
	for _, p := range profiles {
		rep, err := profileSeries(snaps, p.name, p.of, budget)
		if err != nil {
			return nil, err
		}
		if rep != nil {
			a.Series = append(a.Series, ProfileSeries{Profile: p.name, Report: rep})
		}
	}
	return a, nil
}

// profileSeries analyzes one profile over the snapshots that hold it; nil
// when fewer than minSeries do.
func profileSeries(snaps []store.WatchSnapshot, name string, of func(store.WatchSnapshot) []byte, budget *analyze.Budget) (*series.Report, error) {
	var in []pprof.Snapshot
	defer func() {
		for _, s := range in {
			budget.Uncharge(s.Profile.MemSize())
			s.Profile.Close()
		}
	}()
	for _, s := range snaps {
		b := of(s)
		if len(b) == 0 {
			continue
		}
		prof, err := pprof.Open(pprof.Reader(bytes.NewReader(b)), pprof.Options{Limit: maxProfileBytes, Budget: budget})
		if err == nil {
			if err = budget.Charge(prof.MemSize()); err != nil {
				prof.Close()
			}
		}
		if err != nil {
			return nil, fmt.Errorf("the %s profile of %s: %w", name, s.Tick.UTC().Format(time.RFC3339), err)
		}
		in = append(in, pprof.Snapshot{Name: s.Tick.UTC().Format(time.RFC3339), Profile: prof})
	}
	if len(in) < minSeries {
		return nil, nil
	}
	rep, err := pprof.Series(in, series.Options{})
	if err != nil {
		if errors.Is(err, analyze.ErrBusy) || errors.Is(err, analyze.ErrTooLarge) {
			return nil, err
		}
		return nil, fmt.Errorf("the %s series: %w", name, err)
	}
	return rep, nil
}

// main is the series the watch's verdict came from: the profile its reason
// names ("heap: …"), else the first analyzed; nil when none is.
func (a *Analysis) main(st watch.Status) *ProfileSeries {
	if a == nil || len(a.Series) == 0 {
		return nil
	}
	if name, _, ok := strings.Cut(st.Reason, ":"); ok {
		for i := range a.Series {
			if a.Series[i].Profile == name {
				return &a.Series[i]
			}
		}
	}
	for i := range a.Series {
		if a.Series[i].Profile == "heap" {
			return &a.Series[i]
		}
	}
	return &a.Series[0]
}

// suspectSeries is the series a watch's sparkline draws: its suspect's
// values in the series its verdict came from, else that series' totals; what
// names what is drawn.
func (a *Analysis) suspectSeries(st watch.Status) (values []int64, what, unit string) {
	m := a.main(st)
	if m == nil {
		return nil, "", ""
	}
	rep := m.Report
	if st.Suspect != "" {
		for _, list := range [][]series.Suspect{rep.Suspects, rep.Growers, rep.Shrinkers} {
			for _, s := range list {
				if s.Name == st.Suspect {
					return s.Values, s.Name, rep.Unit
				}
			}
		}
	}
	return rep.Totals, "total " + rep.SampleType + " (" + m.Profile + ")", rep.Unit
}
