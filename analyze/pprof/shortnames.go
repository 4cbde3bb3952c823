// Copyright 2022 Google Inc. All Rights Reserved.
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
// v0.0.0-20251114195745-4902fdda35c8): internal/report/shortnames.go
// (shortNameList and allSuffixes), which names the frames of pprof's flame
// graph (report.Stacks: StackSource.Display).
//
// Changed by the leakui authors: shortNameList is exported as DisplayNames;
// fileNameSuffixes is left out.

package pprof

import "regexp"

// sepRE splits a shortened name into its suffixes: at C++ and Rust's "::" and
// at Go and Java's ".".
var sepRE = regexp.MustCompile(`::|\.`)

// DisplayNames is the sequence of labels pprof's flame graph tries for a frame
// of this function, longest first, each a suffix of the one before: the name
// shortened as pprof shortens it (ShortName), then what follows each "::" or
// ".". pprof draws the first that fits its box. The list is never empty.
func DisplayNames(name string) []string {
	name = ShortName(name)
	return allSuffixes(name, sepRE)
}

// allSuffixes returns a list of suffixes (in order of decreasing length)
// found by splitting at re.
func allSuffixes(name string, re *regexp.Regexp) []string {
	seps := re.FindAllStringIndex(name, -1)
	result := make([]string, 0, len(seps)+1)
	result = append(result, name)
	for _, sep := range seps {
		// Suffix starting just after sep
		if sep[1] < len(name) {
			result = append(result, name[sep[1]:])
		}
	}
	return result
}
