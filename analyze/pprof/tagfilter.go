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
// v0.0.0-20251114195745-4902fdda35c8; the same text is in the module cache's
// github.com/google/pprof@v0.0.0-20261105003125-4bf881d7fb0b):
// internal/driver/driver_focus.go (compileTagFilter, lines 81-159, and
// parseTagFilterRange, lines 168-212).
//
// Changed by the leakui authors: compiled once into a TagFilter that is matched
// later against a profile's numeric label units, with leakui's errors.

package pprof

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/leakui/leakui/analyze"
)

// TagFilter is a compiled -tagfocus or -tagignore, as pprof's driver compiles
// it: an optional label key ("key=…"), then either a numeric range of a numeric
// label ("32kb", ":64kb", "4mb:", "12kb:64mb", in the label's unit) or
// comma-separated regexps, which match "key:value" of any string label (or the
// value of the key given).
type TagFilter struct {
	expr string
	key  string
	// num is the range, nil for regexps.
	num func(v int64, unit string) bool
	rx  []*regexp.Regexp
}

// tagFilterRangeRx is driver_focus.go's tagFilterRangeRx.
var tagFilterRangeRx = regexp.MustCompile("([+-]?[[:digit:]]+)([[:alpha:]]+)?")

// CompileTagFilter compiles the value of pprof's -tagfocus or -tagignore
// (option names it in errors); "" gives nil, the option off. An invalid regexp
// wraps ErrInvalidParameter.
func CompileTagFilter(option, expr string) (*TagFilter, error) {
	if expr == "" {
		return nil, nil
	}
	t := &TagFilter{expr: expr}
	value := expr
	if kv := strings.SplitN(expr, "=", 2); len(kv) == 2 {
		t.key, value = kv[0], kv[1]
	}
	if t.num = parseTagFilterRange(value); t.num != nil {
		return t, nil
	}
	for _, tagf := range strings.Split(value, ",") {
		fx, err := regexp.Compile(tagf)
		if err != nil {
			return nil, fmt.Errorf("%w: %s regexp %q: %v", analyze.ErrInvalidParameter, option, tagf, err)
		}
		t.rx = append(t.rx, fx)
	}
	return t, nil
}

// String is the expression as given.
func (t *TagFilter) String() string { return t.expr }

// IsRange reports whether the filter was read as a numeric range rather than
// regexps (pprof says "Interpreted '…' as range, not regexp").
func (t *TagFilter) IsRange() bool { return t != nil && t.num != nil }

// match is the filter as pprof's TagMatch for a profile whose numeric label
// keys have the units numLabelUnits (profile.NumLabelUnits); nil for a nil
// filter.
func (t *TagFilter) match(numLabelUnits map[string]string) profile.TagMatch {
	if t == nil {
		return nil
	}
	if t.num != nil {
		labelFilter := func(vals []int64, unit string) bool {
			for _, val := range vals {
				if t.num(val, unit) {
					return true
				}
			}
			return false
		}
		if t.key == "" {
			return func(s *profile.Sample) bool {
				for key, vals := range s.NumLabel {
					if labelFilter(vals, numLabelUnits[key]) {
						return true
					}
				}
				return false
			}
		}
		return func(s *profile.Sample) bool {
			if vals, ok := s.NumLabel[t.key]; ok {
				return labelFilter(vals, numLabelUnits[t.key])
			}
			return false
		}
	}
	if t.key == "" {
		return func(s *profile.Sample) bool {
		matchedrx:
			for _, rx := range t.rx {
				for key, vals := range s.Label {
					for _, val := range vals {
						if rx.MatchString(key + ":" + val) {
							continue matchedrx
						}
					}
				}
				return false
			}
			return true
		}
	}
	return func(s *profile.Sample) bool {
		if vals, ok := s.Label[t.key]; ok {
			for _, rx := range t.rx {
				if slices.ContainsFunc(vals, rx.MatchString) {
					return true
				}
			}
		}
		return false
	}
}

// parseTagFilterRange is driver_focus.go's parseTagFilterRange: a function that
// checks whether a value is in the range a string describes ("32kb": == 32kb,
// ":64kb": <= 64kb, "4mb:": >= 4mb, "12kb:64mb": between, both included), or nil
// when the string is not a range.
func parseTagFilterRange(filter string) func(int64, string) bool {
	ranges := tagFilterRangeRx.FindAllStringSubmatch(filter, 2)
	if len(ranges) == 0 {
		return nil // No ranges were identified
	}
	v, err := strconv.ParseInt(ranges[0][1], 10, 64)
	if err != nil {
		return nil // pprof panics on a number out of range
	}
	scaledValue, unit := scaleValue(v, ranges[0][2], ranges[0][2])
	if len(ranges) == 1 {
		switch match := ranges[0][0]; filter {
		case match:
			return func(v int64, u string) bool {
				sv, su := scaleValue(v, u, unit)
				return su == unit && sv == scaledValue
			}
		case match + ":":
			return func(v int64, u string) bool {
				sv, su := scaleValue(v, u, unit)
				return su == unit && sv >= scaledValue
			}
		case ":" + match:
			return func(v int64, u string) bool {
				sv, su := scaleValue(v, u, unit)
				return su == unit && sv <= scaledValue
			}
		}
		return nil
	}
	if filter != ranges[0][0]+":"+ranges[1][0] {
		return nil
	}
	if v, err = strconv.ParseInt(ranges[1][1], 10, 64); err != nil {
		return nil
	}
	scaledValue2, unit2 := scaleValue(v, ranges[1][2], unit)
	if unit != unit2 {
		return nil
	}
	return func(v int64, u string) bool {
		sv, su := scaleValue(v, u, unit)
		return su == unit && sv >= scaledValue && sv <= scaledValue2
	}
}
