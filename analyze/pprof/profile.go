// Copyright 2016 Google Inc. All Rights Reserved.
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
// v0.0.0-20251114195745-4902fdda35c8): profile/index.go.
//
// The ported part is SampleIndexByName, which the leakui authors changed into
// Profile.SampleIndex, with leakui's errors.

package pprof

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/pprof/profile"

	"github.com/leakui/leakui/analyze"
)

// Profile is a pprof profile, opened once (Open) and then analyzed many times.
// It is never modified after it is opened; analyses that filter build a
// filtered copy of its call graph, as pprof's driver copies a profile before
// filtering. Its samples are held in memory (decoded), or read again from its
// file for each report (streamed); reports that must equal pprof's text where
// leakui's decoder cannot name the frames as pprof does read its bytes again
// with pprof's own parser (the reference parser). Its methods choose. A profile
// held in memory is safe for concurrent use; a streamed one (a large file) is
// not.
type Profile struct {
	// graph holds the samples when they are in memory; nil when they are
	// streamed (stream holds the tables then).
	graph  *callGraph
	stream *streamedSamples
	meta   profileMeta
	// totals, when set, are the totals of the unfiltered profile this one was
	// filtered from: pprof keeps percentages relative to the whole profile.
	totals []int64
	// parent and filters are the profile this one was filtered from (opened
	// from its source) and the filters applied to it, in order.
	parent  *Profile
	filters []Filter
	// reopen opens the file again; data is the decompressed profile kept for
	// the reference parser when the source cannot be read again. limit and
	// budget are Open's.
	reopen func() (io.ReadCloser, error)
	data   []byte
	limit  int64
	budget *analyze.Budget
	// Format names the encoding the profile was read from ("profile.proto",
	// "legacy text heap", …).
	Format string
	// walks counts the analyses that walked every sample (SampleWalks).
	walks atomic.Int64
}

// SampleWalks is how many times an analysis has walked all of this profile's
// samples since it was loaded: a flame tree built (FlameTree), a filter
// applied (Filter), a diff (Diff). A view served from cached parts walks
// none, which is how a server's tests check that it caches them.
func (p *Profile) SampleWalks() int64 { return p.walks.Load() }

// SampleType is one value kind of a profile with its total over all samples.
type SampleType struct {
	// Type is the sample type's name, such as "inuse_space" or "goroutine".
	Type string `json:"type"`
	// Unit is its unit, such as "bytes", "count" or "nanoseconds".
	Unit string `json:"unit"`
	// Total is the sum of the absolute sample values, what pprof calls the total.
	Total int64 `json:"total"`
}

// loadWithin decodes the profile r reads into memory within a memory budget
// (nil: unbounded): the decompressed bytes and everything the decoder will hold
// are charged to it before they are allocated, field by field as the profile
// streams in (a Line costs its in-memory size, a string its header and bytes).
// The budget keeps nothing charged when loadWithin returns; the caller accounts
// for the profile it keeps (MemSize). It returns the decompressed bytes too.
func loadWithin(r io.Reader, limit int64, budget *analyze.Budget) (*Profile, []byte, error) {
	if limit <= 0 {
		limit = analyze.DefaultMaxDecompressed
	}
	hint := analyze.SizeHint(r)
	rc, _, err := analyze.Decompress(r, limit)
	if err != nil {
		return nil, nil, err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, analyze.SniffSize)
	head, err := br.Peek(analyze.SniffSize)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, err
	}
	// What is charged here is given back at the end: the analysis's budget
	// counts its peak, and the caller counts what it keeps.
	local := budget.Child(budget.Remaining())
	defer local.Release()
	if analyze.DetectKind(head).Format == "profile.proto" {
		data, census, err := readProto(br, limit, hint, local)
		if err != nil {
			return nil, nil, err
		}
		p, err := parseCounted(data, census, local)
		return p, data, err
	}
	data, err := io.ReadAll(&chargingReader{r: br, budget: local})
	if err != nil {
		return nil, nil, err
	}
	p, err := parseCounted(data, nil, local)
	return p, data, err
}

// chargingReader charges a budget with every byte read through it.
type chargingReader struct {
	r      io.Reader
	budget *analyze.Budget
}

func (c *chargingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if cerr := c.budget.Charge(2 * int64(n)); cerr != nil { // 2: io.ReadAll's growth
		return 0, cerr
	}
	return n, err
}

// referenceExpansion is how many bytes the reference parser
// (github.com/google/pprof/profile) holds per byte of the decoder's own tables or
// of legacy text: its profiles are graphs of pointers.
const referenceExpansion = 4

// parse parses decompressed profile bytes into memory.
func parse(data []byte) (*Profile, error) { return parseCounted(data, nil, nil) }

// parseCounted parses decompressed profile bytes within budget. census, when not
// nil, is a profile.proto's census already charged (readProto's).
func parseCounted(data []byte, census *protoCensus, budget *analyze.Budget) (prof *Profile, err error) {
	if len(data) == 0 {
		return nil, analyze.ErrEmpty
	}
	det := analyze.DetectKind(data)
	// The debug=1 text of the goroutineleak profile is a goroutine dump to the
	// goroutine reports and a legacy count profile to pprof, as it always was.
	if det.Kind != analyze.KindProfile && det.Format != analyze.FormatGoroutineLeak {
		return nil, fmt.Errorf("%w: detected %s, not a pprof profile", analyze.ErrUnsupportedKind, det)
	}
	referenceCost := int64(len(data)) * referenceExpansion
	if det.Format == "profile.proto" {
		if census == nil {
			if census, err = censusOf(data); err != nil {
				return nil, fmt.Errorf("%w: %v", analyze.ErrMalformed, err)
			}
			if err := budget.Charge(census.cost()); err != nil {
				return nil, err
			}
		}
		if census.stackEntries >= math.MaxInt32 || census.samples >= math.MaxInt32 {
			return nil, fmt.Errorf("%w: %d samples of %d frames in all; at most %d fit", analyze.ErrTooLarge, census.samples, census.stackEntries, math.MaxInt32-1)
		}
		g, meta, err := decodeCounted(data, census)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", analyze.ErrMalformed, err)
		}
		if meta.dropFrames == "" {
			if err := checkTotals(g, meta); err != nil {
				return nil, err
			}
			return &Profile{graph: g, meta: meta, Format: det.Format}, nil
		}
		// Frames to drop: let the reference parser apply its pruning rules.
		referenceCost = census.cost() * referenceExpansion
	}
	if err := budget.Charge(referenceCost); err != nil {
		return nil, err
	}
	defer func() {
		// The reference parser is third-party code: a hostile file must not take the
		// server down, whatever it trips on.
		if r := recover(); r != nil {
			prof, err = nil, fmt.Errorf("%w: profile parser failed: %v", analyze.ErrMalformed, r)
		}
	}()
	p, err := profile.ParseData(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", analyze.ErrMalformed, det.Format, err)
	}
	if len(p.SampleType) == 0 {
		return nil, fmt.Errorf("%w: the profile has no sample types", analyze.ErrMalformed)
	}
	for _, s := range p.Sample {
		if len(s.Value) != len(p.SampleType) {
			return nil, fmt.Errorf("%w: a sample has %d values for %d sample types", analyze.ErrMalformed, len(s.Value), len(p.SampleType))
		}
	}
	if err := p.RemoveUninteresting(); err != nil {
		return nil, fmt.Errorf("%w: drop_frames: %v", analyze.ErrMalformed, err)
	}
	g, meta := graphFromProfile(p), metaFromProfile(p)
	if err := checkTotals(g, meta); err != nil {
		return nil, err
	}
	return &Profile{graph: g, meta: meta, Format: det.Format}, nil
}

// checkTotals refuses a profile whose total of some sample type (the sum of the
// absolute sample values, what pprof calls the total) does not fit in an int64:
// every number shown of it would be wrapped around. pprof prints such totals
// wrapped; no program holds 8 EiB.
func checkTotals(g *callGraph, meta profileMeta) error {
	totals := make([]uint64, g.nTypes)
	for i := range g.numValues() {
		if j := i % g.nTypes; !addAbs(&totals[j], g.valueAt(i)) {
			return errTotalTooLarge(meta, j)
		}
	}
	return nil
}

// errTotalTooLarge is checkTotals' error for sample type j.
func errTotalTooLarge(meta profileMeta, j int) error {
	name := ""
	if j < len(meta.sampleTypes) {
		name = meta.sampleTypes[j].typ
	}
	return fmt.Errorf("%w: the %s values add up to more than %d, the largest total pprof can count; the profile is corrupt", analyze.ErrMalformed, name, int64(math.MaxInt64))
}

// metaFromProfile copies what the reference parser read about the profile.
func metaFromProfile(p *profile.Profile) profileMeta {
	m := profileMeta{
		defaultSampleType: p.DefaultSampleType,
		timeNanos:         p.TimeNanos,
		durationNanos:     p.DurationNanos,
		period:            p.Period,
		comments:          p.Comments,
	}
	for _, st := range p.SampleType {
		m.sampleTypes = append(m.sampleTypes, valueType{st.Type, st.Unit})
	}
	if p.PeriodType != nil {
		m.periodType = valueType{p.PeriodType.Type, p.PeriodType.Unit}
	}
	for _, mp := range p.Mapping {
		m.mappingFiles = append(m.mappingFiles, mp.File)
	}
	return m
}

// SampleTypes lists the profile's sample types with their totals, in profile
// order. A streamed profile counts its totals in its first walk over its file:
// before any report, SampleTypes makes that walk, and a file that cannot be
// read again gives totals of 0 here (and its error to every report).
func (p *Profile) SampleTypes() []SampleType {
	out := make([]SampleType, len(p.meta.sampleTypes))
	for j, st := range p.meta.sampleTypes {
		out[j] = SampleType{Type: st.typ, Unit: st.unit}
	}
	if p.stream != nil {
		if p.stream.ensureTotals() == nil {
			for j, t := range p.stream.totals {
				out[j].Total = t
			}
		}
		return out
	}
	g := p.graph
	for i := range g.numValues() {
		out[i%g.nTypes].Total += abs64(g.valueAt(i))
	}
	return out
}

// DefaultSampleIndex is the sample type pprof shows when none is asked for: the
// profile's default_sample_type, else the last one.
func (p *Profile) DefaultSampleIndex() int {
	i, _ := p.SampleIndex("")
	return i
}

// SampleIndex resolves a sample type name (or index, or "" for the default) the way
// `go tool pprof -sample_index` does, including its legacy "inuse_" prefix rule. An
// unknown name wraps ErrInvalidParameter and lists the valid names.
func (p *Profile) SampleIndex(name string) (int, error) {
	types := p.meta.sampleTypes
	if name == "" {
		if dst := p.meta.defaultSampleType; dst != "" {
			for i, t := range types {
				if t.typ == dst {
					return i, nil
				}
			}
		}
		return len(types) - 1, nil
	}
	if i, err := strconv.Atoi(name); err == nil {
		if i < 0 || i >= len(types) {
			return 0, fmt.Errorf("%w: sample_index %s is outside the range [0..%d]", analyze.ErrInvalidParameter, name, len(types)-1)
		}
		return i, nil
	}
	noInuse := strings.TrimPrefix(name, "inuse_")
	for i, t := range types {
		if t.typ == name || t.typ == noInuse {
			return i, nil
		}
	}
	return 0, fmt.Errorf("%w: sample_index %q must be one of: %s", analyze.ErrInvalidParameter, name, strings.Join(p.typeNames(), ", "))
}

func (p *Profile) typeNames() []string {
	names := make([]string, len(p.meta.sampleTypes))
	for i, t := range p.meta.sampleTypes {
		names[i] = t.typ
	}
	return names
}

// Time is when the profile was taken, or the zero time when it does not say.
func (p *Profile) Time() time.Time {
	if p.meta.timeNanos == 0 {
		return time.Time{}
	}
	return time.Unix(0, p.meta.timeNanos).UTC()
}

// Duration is the time the profile covers (CPU and delta profiles), or 0.
func (p *Profile) Duration() time.Duration { return time.Duration(p.meta.durationNanos) }

// Samples is the number of samples in the profile.
func (p *Profile) Samples() int {
	if p.stream != nil {
		return p.stream.samples
	}
	return p.graph.samples()
}

// tables is the call graph that holds the profile's locations and names, and
// its samples when they are in memory.
func (p *Profile) tables() *callGraph {
	if p.graph != nil {
		return p.graph
	}
	return p.stream.g
}

// Comments returns the profile's comments.
func (p *Profile) Comments() []string { return p.meta.comments }

// MainBinary names the main mapping's file (the profiled program), or "".
func (p *Profile) MainBinary() string {
	if len(p.meta.mappingFiles) == 0 {
		return ""
	}
	f := p.meta.mappingFiles[0]
	if i := strings.LastIndexByte(f, '/'); i >= 0 {
		f = f[i+1:]
	}
	return f
}

// IsGoroutineProfile reports whether this is a goroutine profile (proto form), whose
// samples are goroutine stacks: /debug/pprof/goroutine, or the runtime's goroutineleak
// profile (see IsGoroutineLeakProfile).
func (p *Profile) IsGoroutineProfile() bool {
	return len(p.meta.sampleTypes) == 1 && (p.meta.sampleTypes[0].typ == "goroutine" || p.meta.sampleTypes[0].typ == "goroutineleak")
}

// IsGoroutineLeakProfile reports whether this is the Go runtime's goroutineleak
// profile (GOEXPERIMENT=goroutineleakprofile, /debug/pprof/goroutineleak, sample
// type goroutineleak/count): the goroutines the garbage collector proved leaked.
func (p *Profile) IsGoroutineLeakProfile() bool {
	return len(p.meta.sampleTypes) == 1 && p.meta.sampleTypes[0].typ == "goroutineleak"
}

// SameType reports whether two profiles measure the same things (the same sample
// type names and units, in order), so that they can be compared.
func (p *Profile) SameType(q *Profile) bool {
	if len(p.meta.sampleTypes) != len(q.meta.sampleTypes) {
		return false
	}
	for i, st := range p.meta.sampleTypes {
		if st != q.meta.sampleTypes[i] {
			return false
		}
	}
	return true
}

// TypeNames renders the sample type names for messages, such as
// "alloc_objects/alloc_space/inuse_objects/inuse_space".
func (p *Profile) TypeNames() string { return strings.Join(p.typeNames(), "/") }

// MismatchNames renders the sample types of two profiles that are not of one
// type for a message: their names, and their units too when the names alone
// are the same ("samples (count)/cpu (microseconds)" against "… (nanoseconds)"),
// so that the message never names the same thing twice.
func MismatchNames(p, q *Profile) (string, string) {
	if p.TypeNames() != q.TypeNames() {
		return p.TypeNames(), q.TypeNames()
	}
	withUnits := func(p *Profile) string {
		parts := make([]string, len(p.meta.sampleTypes))
		for i, st := range p.meta.sampleTypes {
			parts[i] = st.typ + " (" + st.unit + ")"
		}
		return strings.Join(parts, "/")
	}
	return withUnits(p), withUnits(q)
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// MemSize estimates the bytes the parsed profile holds in memory (its call graph
// and strings), so that a cache can bound what it keeps by size, not by count.
func (p *Profile) MemSize() int64 {
	g := p.tables()
	n := int64(len(p.data)) + int64(len(g.stacks))*4 + int64(len(g.stacks16))*2 + int64(len(g.offsets))*4 + int64(len(g.values))*8 + int64(len(g.values32))*4
	for _, name := range g.names {
		n += 16 + int64(len(name))
	}
	for _, l := range g.locs {
		n += 48 + int64(len(l.mapFile))
		for _, ln := range l.lines {
			n += 48 + int64(len(ln.fn)) + int64(len(ln.file))
		}
	}
	return n + int64(len(g.names))*24 // the names' index while it was built
}
