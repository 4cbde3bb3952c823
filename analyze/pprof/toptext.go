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
// v0.0.0-20251114195745-4902fdda35c8): internal/driver/fetch.go,
// internal/report/report.go and profile/merge.go.
//
// The ported parts are unsourceMappings, computeTotal and combineHeaders, which
// the leakui authors changed to read the headers and call graphs of profiles
// leakui decodes itself.

package pprof

import (
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"slices"

	"github.com/leakui/leakui/analyze"
)

// textExact reports whether `go tool pprof -top`'s text can be printed from the
// profile's own call graph, without parsing its bytes again with the reference
// parser: it was decoded by leakui's own profile.proto decoder, every frame is a
// named function (pprof's function nodes are then exactly the call graph's
// nodes) and its ids are regular.
// A filtered profile is when the one it was filtered from is and no filter
// selects by label.
func (p *Profile) textExact() bool {
	r := p.root()
	return r.Format == "profile.proto" && r.meta.textExact && !p.tagged()
}

// textHeader is the report header of a profile decoded by leakui, with the
// legend of its filters.
func (p *Profile) textHeader() textHeader {
	h := p.meta.textHeader()
	h.activeFilters = filtersLegend(p.filters)
	return h
}

// textHeader is the report header of a profile decoded by leakui.
func (m profileMeta) textHeader() textHeader {
	h := textHeader{comments: m.comments, docURL: m.docURL, timeNanos: m.timeNanos, durationNanos: m.durationNanos, sampleTypes: m.sampleTypes}
	if len(m.mappingFiles) > 0 {
		h.hasMapping, h.mainFile, h.mainBuildID = true, m.mappingFiles[0], m.mainBuildID
		// driver/fetch.go unsourceMappings
		if h.mainBuildID == "" && filepath.VolumeName(h.mainFile) == "" {
			if u, err := url.Parse(h.mainFile); err == nil && u.IsAbs() {
				h.mainFile = ""
			}
		}
	}
	return h
}

// WriteTop prints what `go tool pprof -top` prints for the profile with these
// options (and -symbolize=none: leakui does not symbolize), byte for byte. It
// prints from the profile's own call graph when leakui's decoder names every
// frame as pprof does, else through the reference parser, reading the
// profile's bytes again; what the report builds is charged to the profile's
// budget while it runs.
func (p *Profile) WriteTop(w io.Writer, o TextOptions) error {
	if o.SampleIndex < 0 || o.SampleIndex >= len(p.meta.sampleTypes) {
		return fmt.Errorf("%w: sample index %d", analyze.ErrInvalidParameter, o.SampleIndex)
	}
	if !p.textExact() {
		b := p.budget.Child(p.budget.Remaining())
		defer b.Release()
		ref, err := p.root().reference(b)
		if err != nil {
			return err
		}
		return writeReferenceTop(w, ref, p.filters, o)
	}
	in := &textGraphInput{}
	p.addTo(in, o.SampleIndex, false, map[string]int32{})
	return writeTextReport(w, p.textHeader(), in, func() int64 { return p.wholeTotal(o.SampleIndex) }, o)
}

// WriteDiff prints what `go tool pprof -top -diff_base=BASE TARGET` prints,
// byte for byte: from the profiles' own call graphs when both name their frames
// as pprof does (the base's values negated, nodes of one name merged, the
// header merged as profile.Merge merges it, the total the base's), else
// through the reference parser. The profiles must be Comparable.
func WriteDiff(w io.Writer, base, target *Profile, o TextOptions) error {
	if err := Comparable(base, target); err != nil {
		return err
	}
	if o.SampleIndex < 0 || o.SampleIndex >= len(target.meta.sampleTypes) {
		return fmt.Errorf("%w: sample index %d", analyze.ErrInvalidParameter, o.SampleIndex)
	}
	if !slices.EqualFunc(base.filters, target.filters, sameFilter) {
		return fmt.Errorf("%w: a diff's two profiles must be filtered alike", analyze.ErrInvalidParameter)
	}
	if !base.textExact() || !target.textExact() {
		b := target.budget.Child(target.budget.Remaining())
		defer b.Release()
		pt, err := target.root().reference(b)
		if err != nil {
			return err
		}
		pb, err := base.root().reference(b)
		if err != nil {
			return err
		}
		return writeReferenceDiff(w, pb, pt, target.filters, o)
	}
	if base.meta.periodType != target.meta.periodType {
		return fmt.Errorf("%w: the profiles' period types differ", analyze.ErrMismatch)
	}
	in := &textGraphInput{}
	ids := map[string]int32{}
	target.addTo(in, o.SampleIndex, false, ids)
	base.addTo(in, o.SampleIndex, true, ids)
	// report.computeTotal: the base's samples alone when they add up to anything.
	total := base.wholeTotal(o.SampleIndex)
	if total == 0 {
		total = target.wholeTotal(o.SampleIndex)
	}
	h := mergeHeaders(target.textHeader(), base.textHeader())
	h.activeFilters = target.textHeader().activeFilters
	return writeTextReport(w, h, in, func() int64 { return total }, o)
}

// addTo adds the profile's samples of type si to a report's input, negated for
// a diff's base, naming nodes through ids (shared by a diff's two profiles).
func (p *Profile) addTo(in *textGraphInput, si int, neg bool, ids map[string]int32) {
	in.addGraph(p.tables(), si, neg, ids)
	if p.stream != nil {
		in.parts[len(in.parts)-1].file = p.stream
	}
}

// wholeTotal is the total pprof divides by: the sum of the absolute values of
// sample type si before any filter (report.New runs before applyFocus).
func (p *Profile) wholeTotal(si int) int64 {
	if p.totals != nil {
		return p.totals[si]
	}
	return p.total(si)
}

// sameFilter reports whether two filters are the same options.
func sameFilter(a, b Filter) bool { return slices.Equal(a.legend(), b.legend()) }

// total is the sum of the absolute values of sample type si (a streamed
// profile's known after a walk).
func (p *Profile) total(si int) int64 {
	if p.stream != nil {
		if p.stream.ensureTotals() != nil {
			return 0 // the walk's error is the report's
		}
		return p.stream.totals[si]
	}
	return graphTotal(p.graph, si)
}

// graphTotal is the sum of the absolute values of sample type si.
func graphTotal(g *callGraph, si int) int64 {
	var t int64
	for i := range g.samples() {
		t += abs64(g.value(i, si))
	}
	return t
}

// mergeHeaders is mergedHeader over textHeaders: profile.Merge's combineHeaders
// with the first mapping Merge keeps.
func mergeHeaders(srcs ...textHeader) textHeader {
	h := textHeader{sampleTypes: srcs[0].sampleTypes}
	seen := map[string]bool{}
	for _, s := range srcs {
		if h.timeNanos == 0 || s.timeNanos < h.timeNanos {
			h.timeNanos = s.timeNanos
		}
		h.durationNanos += s.durationNanos
		for _, c := range s.comments {
			if !seen[c] {
				h.comments = append(h.comments, c)
				seen[c] = true
			}
		}
		if h.docURL == "" {
			h.docURL = s.docURL
		}
		if !h.hasMapping && s.hasMapping {
			h.hasMapping, h.mainFile, h.mainBuildID = true, s.mainFile, s.mainBuildID
		}
	}
	return h
}
