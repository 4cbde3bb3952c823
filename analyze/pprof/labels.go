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
// This file is ported from github.com/google/pprof as Go 1.26 vendors it
// (cmd/vendor/github.com/google/pprof, version
// v0.0.0-20251114195745-4902fdda35c8): internal/report/report.go (printTags,
// lines 696-767) and internal/graph/graph.go (the tag order of SortTags,
// lines 323-327 and 636-647; graph.go is the same text in the module cache's
// github.com/google/pprof@v0.0.0-20261105003125-4bf881d7fb0b).
//
// Changed by the leakui authors: the tags collected into values (Labels) that
// the text is printed from, with leakui's errors.

package pprof

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/google/pprof/profile"

	"github.com/leakui/leakui/analyze"
)

// Labels is what `go tool pprof -tags` reports of one sample type: every label
// key of the samples with, for each of its values, the sum of the samples that
// carry it. A numeric label's values are its numbers formatted in their unit
// (4kB, 1.50MB), so that the values pprof prints alike are one.
type Labels struct {
	SampleType string `json:"sample_type"`
	Unit       string `json:"unit"`
	// Total is the profile's total, before any filter (what the shares are of).
	Total int64 `json:"total"`
	// Keys are ordered by name.
	Keys []LabelKey `json:"keys"`
}

// LabelKey is one label key and its values, largest first (then by name).
type LabelKey struct {
	Key string `json:"key"`
	// Total is the sum over its values: samples with two values count twice.
	Total  int64        `json:"total"`
	Share  float64      `json:"share"`
	Values []LabelValue `json:"values"`
}

// LabelValue is one value of a label key and the sum of the samples that carry
// it, with its share of the profile's total.
type LabelValue struct {
	Value string  `json:"value"`
	Total int64   `json:"total"`
	Share float64 `json:"share"`
}

// Labels collects the labels of the samples of type o.SampleIndex, as
// `go tool pprof -tags` does with -unit o.Unit (the unit numeric labels are
// formatted in; "minimum" picks one per value). Labels are read by pprof's own
// parser: the profile's bytes are read again (see Open). A filtered profile's
// labels are those of the samples its filters keep.
func (p *Profile) Labels(o TextOptions) (Labels, error) {
	if o.SampleIndex < 0 || o.SampleIndex >= len(p.meta.sampleTypes) {
		return Labels{}, fmt.Errorf("%w: sample index %d", analyze.ErrInvalidParameter, o.SampleIndex)
	}
	if o.Unit == "" {
		o.Unit = DefaultUnit
	}
	b := p.budget.Child(p.budget.Remaining())
	defer b.Release()
	ref, err := p.root().reference(b)
	if err != nil {
		return Labels{}, err
	}
	finishFetch(ref)
	si := o.SampleIndex
	// driver.generateRawReport: the label units, then the total (report.New),
	// then the filters.
	numLabelUnits, _ := ref.NumLabelUnits()
	total := computeTotal([]*profile.Profile{ref}, si)
	applyFiltersAll([]*profile.Profile{ref}, p.filters)

	formatTag := func(v int64, unit string) string { return ScaledLabel(v, unit, o.Unit) }
	tagMap := make(map[string]map[string]int64)
	tagTotalMap := make(map[string]int64)
	add := func(key, val string, v int64) {
		valueMap, ok := tagMap[key]
		if !ok {
			valueMap = make(map[string]int64)
			tagMap[key] = valueMap
		}
		valueMap[val] += v
		tagTotalMap[key] += v
	}
	for _, s := range ref.Sample {
		v := s.Value[si]
		for key, vals := range s.Label {
			for _, val := range vals {
				add(key, val, v)
			}
		}
		for key, vals := range s.NumLabel {
			unit := numLabelUnits[key]
			for _, nval := range vals {
				add(key, formatTag(nval, unit), v)
			}
		}
	}
	st := p.meta.sampleTypes[si]
	out := Labels{SampleType: st.typ, Unit: st.unit, Total: total}
	keys := make([]string, 0, len(tagMap))
	for k := range tagMap {
		keys = append(keys, k)
	}
	sort.Strings(keys) // SortTags of keys whose values are all 0: by name
	share := func(v int64) float64 {
		if total == 0 {
			return 0
		}
		return float64(v) / float64(total)
	}
	for _, k := range keys {
		lk := LabelKey{Key: k, Total: tagTotalMap[k], Share: share(tagTotalMap[k])}
		for name, v := range tagMap[k] {
			lk.Values = append(lk.Values, LabelValue{Value: name, Total: v, Share: share(v)})
		}
		sort.Slice(lk.Values, func(i, j int) bool { // graph.SortTags(tags, true)
			a, b := lk.Values[i], lk.Values[j]
			if a.Total != b.Total {
				return abs64(a.Total) > abs64(b.Total)
			}
			return a.Value < b.Value
		})
		out.Keys = append(out.Keys, lk)
	}
	return out, nil
}

// WriteLabels prints what `go tool pprof -tags` prints for the profile with
// these options (o.SampleIndex and o.Unit), byte for byte: each label key with
// its total and share, then its values. A key or value with a line break of
// its own prints it as \n (see oneLine), where pprof starts a line with it.
func (p *Profile) WriteLabels(w io.Writer, o TextOptions) error {
	if o.Unit == "" {
		o.Unit = DefaultUnit
	}
	l, err := p.Labels(o)
	if err != nil {
		return err
	}
	formatValue := func(v int64) string { return ScaledLabel(v, l.Unit, o.Unit) }
	tabw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.AlignRight)
	for _, k := range l.Keys {
		if l.Total > 0 {
			fmt.Fprintf(tabw, "%s:\t Total %s of %s (%s)\n", oneLine(k.Key), formatValue(k.Total), formatValue(l.Total), Percentage(k.Total, l.Total))
		} else {
			fmt.Fprintf(tabw, "%s:\t Total %s of %s\n", oneLine(k.Key), formatValue(k.Total), formatValue(l.Total))
		}
		for _, v := range k.Values {
			if l.Total > 0 {
				fmt.Fprintf(tabw, " \t%s (%s):\t %s\n", formatValue(v.Total), Percentage(v.Total, l.Total), oneLine(v.Value))
			} else {
				fmt.Fprintf(tabw, " \t%s:\t %s\n", formatValue(v.Total), oneLine(v.Value))
			}
		}
		fmt.Fprintln(tabw)
	}
	return tabw.Flush()
}
