package goroutines

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/google/pprof/profile"

	"github.com/leakui/leakui/analyze"
)

// dumpFromProfileWithin turns a goroutine profile (sample type "goroutine", as
// /debug/pprof/goroutine serves it) into a dump: one record per sample, counting
// the sample's value, with its labels. Frames are the profile's own, innermost
// first, with inlined calls expanded; runtime frames the text formats hide
// (runtime.gopark and the like) are kept, as `go tool pprof -traces` shows them.
// The runtime's goroutineleak profile (sample type "goroutineleak") is read the same
// way, and the dump is flagged ProvenLeaked. Another profile type is refused with
// ErrUnsupportedKind.
// The dump is charged to budget (nil: unbounded) as the text parser charges it.
func dumpFromProfileWithin(p *profile.Profile, budget *analyze.Budget) (*Dump, error) {
	vi := -1
	leak := false
	var types []string
	for i, st := range p.SampleType {
		if st.Type == "goroutine" || st.Type == "goroutineleak" {
			vi, leak = i, st.Type == "goroutineleak"
		}
		types = append(types, st.Type)
	}
	if vi < 0 {
		return nil, fmt.Errorf("%w: a profile of %s, not a goroutine profile", analyze.ErrUnsupportedKind, strings.Join(types, "/"))
	}
	d := &Dump{Format: FormatProto, DeclaredTotal: -1, ProvenLeaked: leak}
	if p.TimeNanos > 0 {
		d.Time = time.Unix(0, p.TimeNanos).UTC()
	}
	in := newGoroutineInterner()
	meter := analyze.NewMeter(budget)
	defer meter.Settle()
	in.meter = meter
	labelSets := map[string]map[string]string{}
	var frames []goroutineFrameRef
	for _, s := range p.Sample {
		if vi >= len(s.Value) || s.Value[vi] <= 0 {
			continue
		}
		count := s.Value[vi]
		if count >= 1<<31 {
			return nil, fmt.Errorf("%w: a sample of %d goroutines", analyze.ErrMalformed, count)
		}
		frames = frames[:0]
		for _, loc := range s.Location {
			if loc == nil {
				continue
			}
			if len(loc.Line) == 0 {
				frames = append(frames, goroutineFrameRef{fn: in.idString("0x" + strconv.FormatUint(loc.Address, 16))})
				continue
			}
			for _, ln := range loc.Line {
				name := "?"
				file := ""
				if ln.Function != nil {
					name, file = ln.Function.Name, ln.Function.Filename
				}
				line := ln.Line
				if line < 0 || line >= 1<<31 {
					line = 0
				}
				frames = append(frames, goroutineFrameRef{fn: in.idString(name), file: in.idString(file), line: int32(line)})
			}
		}
		g := Goroutine{ID: -1, Count: int(count), CreatorID: -1, Stack: in.stack(frames, nil)}
		if labels, key := goroutineSampleLabels(s); key != "" {
			if shared, ok := labelSets[key]; ok {
				labels = shared
			} else if in.charge(2*int64(len(key)) + int64(len(labels))*goroutineStringCost) {
				labelSets[key] = labels
			}
			g.Labels, g.labelsKey = labels, key
		}
		if !in.charge(goroutineCost) {
			return nil, in.err
		}
		d.Goroutines = append(d.Goroutines, g)
	}
	if in.err != nil {
		return nil, in.err
	}
	d.memSize = meter.Spent()
	return d, nil
}

// protoExpansion is how many bytes google/pprof's decoder may hold per byte of
// profile.proto it decodes: a one-byte location id becomes a uint64 and a
// pointer, an empty two-byte Line a 32-byte struct, with room for the slices'
// growth.
const protoExpansion = 32

// readProtoWithin reads a goroutine profile.proto whole, charging budget for it
// and for what decoding it may hold (protoExpansion) as it streams in, so a
// profile that would not fit is refused before it is decoded. The charge is the
// caller's to release.
func readProtoWithin(r io.Reader, budget *analyze.Budget) ([]byte, error) {
	if budget == nil {
		return io.ReadAll(r)
	}
	var buf bytes.Buffer
	chunk := make([]byte, 64<<10)
	for {
		n, err := r.Read(chunk)
		if n > 0 {
			if cerr := budget.Charge(int64(n) * (2 + protoExpansion)); cerr != nil { // 2: the buffer's growth
				return nil, cerr
			}
			buf.Write(chunk[:n])
		}
		if errors.Is(err, io.EOF) {
			return buf.Bytes(), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// goroutineSampleLabels flattens a sample's string and numeric labels to one value per key
// (several values are joined with commas).
func goroutineSampleLabels(s *profile.Sample) (map[string]string, string) {
	if len(s.Label) == 0 && len(s.NumLabel) == 0 {
		return nil, ""
	}
	labels := make(map[string]string, len(s.Label)+len(s.NumLabel))
	for k, vs := range s.Label {
		labels[k] = strings.Join(vs, ",")
	}
	for k, vs := range s.NumLabel {
		nums := make([]string, len(vs))
		for i, v := range vs {
			nums[i] = strconv.FormatInt(v, 10)
		}
		labels[k] = strings.Join(nums, ",")
	}
	return labels, canonicalGoroutineLabels(labels)
}
