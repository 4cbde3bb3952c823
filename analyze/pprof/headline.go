package pprof

import (
	"fmt"
	"strings"

	"github.com/leakui/leakui/analyze"
)

// Headline is one profile's verdict in one sentence: its total, what weighs most,
// and what this kind of profile can and cannot tell, said for its sample type (a
// CPU profile shows where time goes, a heap profile where memory is held, a
// goroutine profile where goroutines wait). For the Go runtime's goroutineleak
// profile it says "proven leaked: N" and where most of them are. Goroutine
// profiles are summed by site (the first function outside the runtime, internal,
// sync and time packages), as series are, since every parked goroutine's leaf is
// runtime.gopark. A streamed profile makes it over walks of its file, which can
// fail.
func (p *Profile) Headline(sampleIndex int) (string, error) {
	top, err := p.Top(sampleIndex)
	if err != nil {
		return "", err
	}
	total := analyze.FormatValue(top.Total, top.Unit)
	if top.ProvenLeaked {
		s := "Proven leaked: " + analyze.Plural(top.Leaked, "goroutine") +
			", by the Go runtime's goroutineleak profile: blocked on something no other goroutine can reach, they can never run again"
		site, n, err := p.largestSite(sampleIndex)
		if err != nil {
			return "", err
		}
		if site != "" {
			s += fmt.Sprintf("; the most in %s (%s)", site, analyze.FormatCount(n))
		}
		return s + ".", nil
	}
	s := fmt.Sprintf("One profile: %s totals %s", top.SampleType, total)
	switch {
	case p.IsGoroutineProfile():
		site, n, err := p.largestSite(sampleIndex)
		if err != nil {
			return "", err
		}
		if site != "" {
			s += fmt.Sprintf("; the most goroutines wait in %s (%s, %s)", site, analyze.FormatCount(n), analyze.Percent(n, top.Total))
		}
	case len(top.Rows) > 0:
		r := top.Rows[0]
		s += fmt.Sprintf("; the largest is %s with %s flat (%s)", r.Name, analyze.FormatValue(r.Flat, top.Unit), analyze.Percent(r.Flat, top.Total))
	}
	return s + ". " + p.sampleTypeSentence(sampleIndex), nil
}

// sampleTypeSentence says what one sample type of a single profile shows and
// what it cannot, with what to take instead.
func (p *Profile) sampleTypeSentence(sampleIndex int) string {
	st, period := p.meta.sampleTypes[sampleIndex], p.meta.periodType.typ
	switch typ := st.typ; {
	case p.IsGoroutineProfile():
		return "A goroutine profile shows where goroutines wait, not whether they pile up: compare snapshots taken minutes apart, or take the goroutineleak profile of a program built with GOEXPERIMENT=goroutineleakprofile for proof."
	case strings.HasPrefix(typ, "alloc_"):
		return "Allocations count everything allocated since the program started, freed or not: they show where memory churns, not what is held (inuse_space shows that); take 8–12 snapshots over time for a leak verdict."
	case strings.HasPrefix(typ, "inuse_") || period == "space":
		return "A heap profile shows where memory is held now, not whether it grows: take 8–12 snapshots over time for a leak verdict."
	case typ == "cpu" || period == "cpu":
		return "A CPU profile shows where time goes while the program runs, not what it holds: a leak shows in heap and goroutine profiles taken over time."
	case period == "wallclock" || typ == "time" || typ == "wall":
		return "A wall-clock profile shows where time goes, running or waiting, not what the program holds: a leak shows in heap and goroutine profiles taken over time."
	case typ == "contentions" || typ == "delay":
		return "A block or mutex profile shows where goroutines waited for channels and locks, not what the program holds: a leak shows in heap and goroutine profiles taken over time."
	case typ == "threadcreate":
		return "A threadcreate profile shows where OS threads were created, not whether they pile up: compare snapshots taken over time."
	}
	return fmt.Sprintf("One profile shows how its %s is spread over the functions, not whether it grows: take 8–12 snapshots over time for a leak verdict.", st.typ)
}

// largestSite returns the goroutine site with the most goroutines and their
// number, or "" when the profile has none.
func (p *Profile) largestSite(sampleIndex int) (string, int64, error) {
	sums := map[string]int64{}
	site, most := "", int64(0)
	stacks, err := p.seriesStacks(sampleIndex)
	if err != nil {
		return "", 0, err
	}
	for _, sv := range stacks {
		sums[sv.Site] += sv.Value
		if v := sums[sv.Site]; v > most || (v == most && sv.Site < site) {
			site, most = sv.Site, v
		}
	}
	return site, most, nil
}
