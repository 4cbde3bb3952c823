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

	"github.com/leakui/leakui/analyze"
)

// TextExact reports whether `go tool pprof -top`'s text can be printed from the
// profile itself (WriteProfileTopText, WriteProfileDiffText), without parsing
// the file again with the reference parser: it was decoded by leakui's own
// profile.proto decoder, every frame is a named function (pprof's function nodes
// are then exactly the call graph's nodes) and its ids are regular.
func (p *Profile) TextExact() bool {
	return p.Format == "profile.proto" && p.meta.textExact && p.totals == nil
}

// textHeader is the report header of a profile decoded by leakui.
func (p *Profile) textHeader() textHeader { return p.meta.textHeader() }

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

// WriteProfileTopText prints what `go tool pprof -top` prints for the profile,
// as WriteTopText does, from the profile's own call graph: no second parse, and
// none of the reference parser's memory. The profile must be TextExact.
func WriteProfileTopText(w io.Writer, p *Profile, o TextOptions) error {
	if !p.TextExact() {
		return fmt.Errorf("%w: this profile's text needs the reference parser (WriteTopText)", analyze.ErrInvalidParameter)
	}
	if o.SampleIndex < 0 || o.SampleIndex >= len(p.meta.sampleTypes) {
		return fmt.Errorf("%w: sample index %d", analyze.ErrInvalidParameter, o.SampleIndex)
	}
	in := &textGraphInput{}
	in.addGraph(p.graph, o.SampleIndex, false, map[string]int32{})
	return writeTextReport(w, p.textHeader(), in, func() int64 { return graphTotal(p.graph, o.SampleIndex) }, o)
}

// WriteProfileDiffText prints what `go tool pprof -top -diff_base=BASE TARGET`
// prints, as WriteDiffText does, from the profiles' own call graphs: the base's
// values negated, nodes of one name merged, the header merged as profile.Merge
// merges it, the total the base's. Both must be TextExact and Comparable.
func WriteProfileDiffText(w io.Writer, base, target *Profile, o TextOptions) error {
	if !base.TextExact() || !target.TextExact() {
		return fmt.Errorf("%w: these profiles' text needs the reference parser (WriteDiffText)", analyze.ErrInvalidParameter)
	}
	if err := Comparable(base, target); err != nil {
		return err
	}
	if base.meta.periodType != target.meta.periodType {
		return fmt.Errorf("%w: the profiles' period types differ", analyze.ErrMismatch)
	}
	if o.SampleIndex < 0 || o.SampleIndex >= len(target.meta.sampleTypes) {
		return fmt.Errorf("%w: sample index %d", analyze.ErrInvalidParameter, o.SampleIndex)
	}
	in := &textGraphInput{}
	ids := map[string]int32{}
	in.addGraph(target.graph, o.SampleIndex, false, ids)
	in.addGraph(base.graph, o.SampleIndex, true, ids)
	// report.computeTotal: the base's samples alone when they add up to anything.
	total := graphTotal(base.graph, o.SampleIndex)
	if total == 0 {
		total = graphTotal(target.graph, o.SampleIndex)
	}
	return writeTextReport(w, mergeHeaders(target.textHeader(), base.textHeader()), in, func() int64 { return total }, o)
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
