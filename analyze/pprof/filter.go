// Copyright 2014 Google Inc. All Rights Reserved.
// Copyright 2026 the leakui authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.
//
// Parts of this file are ported from github.com/google/pprof as Go 1.26 vendors
// it (cmd/vendor/github.com/google/pprof, version
// v0.0.0-20251114195745-4902fdda35c8): profile/filter.go and
// internal/driver/driver.go.
//
// The ported parts are FilterSamplesByName, matchesName, matchedLines and
// unmatchedLines, which the leakui authors changed to work on leakui's call
// graph and to charge a memory budget, and the filters' legend of
// reportOptions (driver.go, lines 299-312).

package pprof

import (
	"fmt"
	"regexp"
	"slices"
	"unsafe"

	"github.com/google/pprof/profile"

	"github.com/leakui/leakui/analyze"
)

// Filter selects samples and frames the way `go tool pprof`'s -focus, -ignore,
// -hide, -show, -tagfocus and -tagignore do. A nil option is off.
type Filter struct {
	// Focus keeps only samples with a frame matching it.
	Focus *regexp.Regexp
	// Ignore drops samples with a frame matching it.
	Ignore *regexp.Regexp
	// Hide removes matching frames from the stacks.
	Hide *regexp.Regexp
	// Show keeps only matching frames in the stacks.
	Show *regexp.Regexp
	// TagFocus keeps only samples with a label it matches (see CompileTagFilter).
	TagFocus *TagFilter
	// TagIgnore drops samples with a label it matches.
	TagIgnore *TagFilter
}

// FilterMatches tells which of a filter's options matched something, so a page can
// say that a filter matched nothing instead of showing an empty table.
type FilterMatches struct {
	Focus, Ignore, Hide, Show, TagFocus, TagIgnore bool
}

// Active reports whether any option is set.
func (f Filter) Active() bool {
	return f.Focus != nil || f.Ignore != nil || f.Hide != nil || f.Show != nil || f.hasTags()
}

// hasTags reports whether the filter selects by label: only pprof's parser,
// which reads the labels, applies it.
func (f Filter) hasTags() bool { return f.TagFocus != nil || f.TagIgnore != nil }

// legend is the filter as pprof's report legend lists it (driver.reportOptions'
// ActiveFilters): "focus=…", "ignore=…", …, in pprof's order.
func (f Filter) legend() []string {
	var out []string
	add := func(k, v string) {
		if v != "" {
			out = append(out, k+"="+v)
		}
	}
	rx := func(re *regexp.Regexp) string {
		if re == nil {
			return ""
		}
		return re.String()
	}
	tag := func(t *TagFilter) string {
		if t == nil {
			return ""
		}
		return t.String()
	}
	add("focus", rx(f.Focus))
	add("ignore", rx(f.Ignore))
	add("hide", rx(f.Hide))
	add("show", rx(f.Show))
	add("tagfocus", tag(f.TagFocus))
	add("tagignore", tag(f.TagIgnore))
	return out
}

// applyReference filters a profile parsed by the reference parser as pprof's
// driver does (applyFocus: FilterSamplesByName, then FilterSamplesByTag with the
// numeric label units of the profile before any filter, numLabelUnits).
func (f Filter) applyReference(p *profile.Profile, numLabelUnits map[string]string) FilterMatches {
	var m FilterMatches
	m.Focus, m.Ignore, m.Hide, m.Show = p.FilterSamplesByName(f.Focus, f.Ignore, f.Hide, f.Show)
	m.TagFocus, m.TagIgnore = p.FilterSamplesByTag(f.TagFocus.match(numLabelUnits), f.TagIgnore.match(numLabelUnits))
	return m
}

// Unmatched lists the options that are set but matched nothing, as pprof's flag
// names ("focus", "ignore", "hide", "show").
func (f Filter) Unmatched(m FilterMatches) []string {
	var out []string
	if f.Focus != nil && !m.Focus {
		out = append(out, "focus")
	}
	if f.Ignore != nil && !m.Ignore {
		out = append(out, "ignore")
	}
	if f.Hide != nil && !m.Hide {
		out = append(out, "hide")
	}
	if f.Show != nil && !m.Show {
		out = append(out, "show")
	}
	if f.TagFocus != nil && !m.TagFocus {
		out = append(out, "tagfocus")
	}
	if f.TagIgnore != nil && !m.TagIgnore {
		out = append(out, "tagignore")
	}
	return out
}

// CompileFilter compiles the four RE2 regexps; an empty string leaves that option
// off. An invalid regexp wraps ErrInvalidParameter and names the option.
func CompileFilter(focus, ignore, hide, show string) (Filter, error) {
	var f Filter
	for _, o := range []struct {
		name, expr string
		dst        **regexp.Regexp
	}{{"focus", focus, &f.Focus}, {"ignore", ignore, &f.Ignore}, {"hide", hide, &f.Hide}, {"show", show, &f.Show}} {
		if o.expr == "" {
			continue
		}
		re, err := regexp.Compile(o.expr)
		if err != nil {
			return Filter{}, fmt.Errorf("%w: %s regexp %q: %v", analyze.ErrInvalidParameter, o.name, o.expr, err)
		}
		*o.dst = re
	}
	return f, nil
}

// Filter returns a copy of the profile with only the samples and frames the
// filter selects, and which options matched, as pprof's FilterSamplesByName
// does; the profile itself is not changed. The copy (its frames, and the
// samples it keeps when it drops some) is charged to budget before it is
// allocated (nil: unbounded), so a filter over a profile the budget has no room
// to copy is refused with the budget's error (ErrTooLarge or ErrBusy, naming the
// limit). The copy stays charged; release the budget when it is no longer
// used. The copy's samples are in memory, also when the profile's are read
// again from its file. Reports on the copy keep percentages relative to the
// whole profile, as pprof does.
func (p *Profile) Filter(f Filter, budget *analyze.Budget) (*Profile, FilterMatches, error) {
	if !f.Active() {
		return p, FilterMatches{Focus: true}, nil
	}
	p.walks.Add(1)
	meter := analyze.NewMeter(budget)
	defer meter.Settle()
	out := &Profile{meta: p.meta, Format: p.Format, parent: p.root(),
		filters: append(slices.Clip(p.filters), f), limit: p.limit, budget: p.budget}
	if out.tagged() {
		// The labels are read by pprof's parser only: the filters are applied to
		// its profile, as pprof's driver applies them, and its samples kept.
		b := budget.Child(budget.Remaining())
		defer b.Release()
		ref, err := p.root().reference(b)
		if err != nil {
			return nil, FilterMatches{}, err
		}
		finishFetch(ref)
		m := applyFilters(ref, out.filters)
		b.Release()
		out.graph, out.totals = graphFromProfile(ref), p.wholeTotals()
		if err := meter.Charge(out.MemSize()); err != nil {
			return nil, m, err
		}
		return out, m, nil
	}
	g, m, err := filterGraph(p, f, meter)
	if err != nil {
		return nil, m, err
	}
	out.graph, out.totals = g, p.wholeTotals() // after the walk, which counted a stream's totals
	return out, m, nil
}

// wholeTotals are the totals of every sample type before any filter.
func (p *Profile) wholeTotals() []int64 {
	if p.totals != nil {
		return p.totals
	}
	totals := make([]int64, len(p.meta.sampleTypes))
	for i, st := range p.SampleTypes() {
		totals[i] = st.Total
	}
	return totals
}

// tagged reports whether a filter of the profile selects by label.
func (p *Profile) tagged() bool {
	for _, f := range p.filters {
		if f.hasTags() {
			return true
		}
	}
	return false
}

// applyFilters applies filters in order to a profile of the reference parser,
// and says which options of the last one matched.
func applyFilters(p *profile.Profile, filters []Filter) FilterMatches {
	units, _ := p.NumLabelUnits()
	var m FilterMatches
	for _, f := range filters {
		m = f.applyReference(p, units)
	}
	return m
}

// or is which options matched in either.
func (m FilterMatches) or(n FilterMatches) FilterMatches {
	return FilterMatches{m.Focus || n.Focus, m.Ignore || n.Ignore, m.Hide || n.Hide, m.Show || n.Show, m.TagFocus || n.TagFocus, m.TagIgnore || n.TagIgnore}
}

// inMemory is the profile's call graph with its samples in memory: its own, or
// for a streamed profile a copy of its file's samples, charged to budget before
// it is allocated (the caller releases it). The analyses that sort or index
// the samples themselves (the flame tree) read them from it.
func (p *Profile) inMemory(budget *analyze.Budget) (*callGraph, error) {
	if p.graph != nil {
		return p.graph, nil
	}
	meter := analyze.NewMeter(budget)
	defer meter.Settle()
	g := p.tables()
	out := newCallGraph(g.nTypes, 0, 0, len(g.locs))
	out.names, out.locs = g.names, g.locs
	var failed error
	err := p.walkSamples(func(stack []int32, values []int64) {
		if failed == nil {
			if failed = out.reserveSample(len(stack), meter); failed == nil {
				out.appendSample(stack, values)
			}
		}
	})
	if err == nil {
		err = failed
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// walkSamples calls fn with the stack (location indexes, leaf first) and the
// values of every sample, which it must not keep: from the samples in memory,
// or over one walk of the file.
func (p *Profile) walkSamples(fn func(stack []int32, values []int64)) error {
	if p.stream != nil {
		return p.stream.walk(fn)
	}
	g := p.graph
	var stack []int32
	var vals []int64
	for i := range g.samples() {
		stack = g.stack(i, stack)
		vals = g.sampleValues(i, vals)
		fn(stack, vals)
	}
	return nil
}

// filterGraph applies pprof's FilterSamplesByName to a profile's call graph,
// charging meter for the copy before allocating it.
func filterGraph(p *Profile, f Filter, meter *analyze.Meter) (*callGraph, FilterMatches, error) {
	g := p.tables()
	var m FilterMatches
	locsCost := int64(len(g.locs)) * (int64(unsafe.Sizeof(graphLoc{})) + 2)
	if f.Hide != nil || f.Show != nil { // the frames kept get slices of their own
		for _, loc := range g.locs {
			locsCost += int64(len(loc.lines)) * int64(unsafe.Sizeof(graphLine{}))
		}
	}
	if err := meter.Charge(locsCost); err != nil {
		return nil, m, err
	}
	const (
		neither = iota
		focused
		ignored
	)
	state := make([]uint8, len(g.locs))
	hidden := make([]bool, len(g.locs))
	anyHidden := false
	locs := make([]graphLoc, len(g.locs))
	for i, loc := range g.locs {
		if f.Ignore != nil && loc.matches(f.Ignore) {
			m.Ignore = true
			state[i] = ignored
		} else if f.Focus == nil || loc.matches(f.Focus) {
			m.Focus = true
			state[i] = focused
		}
		lines := loc.lines
		if f.Hide != nil && loc.matches(f.Hide) {
			m.Hide = true
			lines = loc.linesWhere(f.Hide, false, lines)
			if len(lines) == 0 {
				hidden[i] = true
			}
		}
		if f.Show != nil {
			lines = loc.linesWhere(f.Show, true, lines)
			if len(lines) == 0 {
				hidden[i] = true
			} else {
				m.Show = true
			}
		}
		anyHidden = anyHidden || hidden[i]
		locs[i] = graphLoc{lines: lines, mapFile: loc.mapFile, hasMapping: loc.hasMapping, noLines: loc.noLines}
	}
	allFocused := true
	for _, st := range state {
		allFocused = allFocused && st == focused
	}
	if p.graph != nil && !anyHidden && allFocused && noEmptyStack(g) {
		// Every sample stays whole (a hide that removes no whole frame, a focus
		// that matches everything): the copy shares the samples, read-only, and
		// only the frames may differ. A fresh filter then costs no copy of a
		// large profile.
		out := *g
		out.locs = locs
		return &out, m, nil
	}
	out := newCallGraph(g.nTypes, 0, 0, len(locs))
	out.names, out.locs = g.names, locs
	if g.narrowValues {
		out.useNarrowValues(0)
	}
	var stack []int32
	var failed error
	err := p.walkSamples(func(buf []int32, vals []int64) {
		if failed != nil {
			return
		}
		keep, focus := true, false
		for _, l := range buf {
			switch state[l] {
			case ignored:
				keep = false
			case focused:
				focus = true
			}
		}
		if !keep || !focus {
			return
		}
		stack = stack[:0]
		for _, l := range buf {
			if !anyHidden || !hidden[l] {
				stack = append(stack, l)
			}
		}
		if len(stack) == 0 {
			return
		}
		if failed = out.reserveSample(len(stack), meter); failed != nil {
			return
		}
		out.appendSample(stack, vals)
	})
	if err == nil {
		err = failed
	}
	if err != nil {
		return nil, m, err
	}
	return out, m, nil
}

// reserveSample makes room in g for one more sample of n frames, charging meter
// for every larger array before it is allocated (the arrays it replaces stay
// charged: they are garbage the collector has not taken yet).
func (g *callGraph) reserveSample(n int, meter *analyze.Meter) (err error) {
	if g.narrow {
		g.stacks16, err = growCharged(g.stacks16, n, meter)
	} else {
		g.stacks, err = growCharged(g.stacks, n, meter)
	}
	if err == nil {
		g.offsets, err = growCharged(g.offsets, 1, meter)
	}
	if err == nil && g.narrowValues {
		g.values32, err = growCharged(g.values32, g.nTypes, meter)
	} else if err == nil {
		g.values, err = growCharged(g.values, g.nTypes, meter)
	}
	return err
}

// growCharged returns s with room for extra more elements: the same slice when
// it has it, else a copy twice as large, charged to meter first.
func growCharged[T any](s []T, extra int, meter *analyze.Meter) ([]T, error) {
	if len(s)+extra <= cap(s) {
		return s, nil
	}
	n := max(2*cap(s), len(s)+extra, 64)
	var zero T
	if err := meter.Charge(int64(n) * int64(unsafe.Sizeof(zero))); err != nil {
		return s, err
	}
	return slices.Grow(s, n-len(s)), nil
}

// matches is pprof's Location.matchesName: a frame's function name or file, or the
// mapping's file.
func (l graphLoc) matches(re *regexp.Regexp) bool {
	for _, ln := range l.lines {
		if ln.hasFunc && (re.MatchString(ln.fn) || re.MatchString(ln.file)) {
			return true
		}
	}
	return l.hasMapping && re.MatchString(l.mapFile)
}

// linesWhere keeps the frames that match re (keep=true, pprof's matchedLines) or
// that do not (keep=false, unmatchedLines). A matching mapping file selects every
// frame; frames without a function are always kept; a location that has no frames
// at all (only the placeholder) keeps none.
func (l graphLoc) linesWhere(re *regexp.Regexp, keep bool, lines []graphLine) []graphLine {
	if l.noLines {
		return nil
	}
	if l.hasMapping && re.MatchString(l.mapFile) {
		if keep {
			return lines
		}
		return nil
	}
	var out []graphLine
	for _, ln := range lines {
		if !ln.hasFunc || (re.MatchString(ln.fn) || re.MatchString(ln.file)) == keep {
			out = append(out, ln)
		}
	}
	return out
}

// noEmptyStack reports whether every sample of g has a stack (the filter drops
// those that have none).
func noEmptyStack(g *callGraph) bool {
	for i := range g.samples() {
		if g.offsets[i] == g.offsets[i+1] {
			return false
		}
	}
	return true
}
