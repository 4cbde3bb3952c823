package analyze

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

// Profile is a parsed pprof profile, loaded once and then analyzed many times. It is
// never modified after loading; analyses that filter work on a copy, as pprof's
// driver does.
type Profile struct {
	p     *profile.Profile
	graph *callGraph // built once on first use, read-only after
	// Format names the encoding the profile was read from ("profile.proto",
	// "legacy text heap", …).
	Format string
}

// SampleType is one value kind of a profile with its total over all samples.
type SampleType struct {
	// Type is the sample type's name, such as "inuse_space" or "goroutine".
	Type string `json:"type"`
	// Unit is its unit, such as "bytes", "count" or "nanoseconds".
	Unit string `json:"unit"`
	// Total is the sum of the absolute sample values, what pprof calls the total.
	Total int64 `json:"total"`
}

// LoadProfile reads any profile `go tool pprof` reads (profile.proto gzipped or not,
// legacy text heap/growth/threadcreate, legacy binary CPU) from r. The content is
// decompressed within limit bytes (see Decompress). Errors wrap ErrEmpty, ErrTooLarge,
// ErrUnsupportedKind (for content that is not a profile) or ErrMalformed.
func LoadProfile(r io.Reader, limit int64) (*Profile, error) {
	data, _, err := ReadAllLimited(r, limit)
	if err != nil {
		return nil, err
	}
	return ParseProfile(data)
}

// ParseProfile parses decompressed profile bytes; see LoadProfile.
func ParseProfile(data []byte) (prof *Profile, err error) {
	if len(data) == 0 {
		return nil, ErrEmpty
	}
	det := DetectKind(data)
	if det.Kind != KindProfile {
		return nil, fmt.Errorf("%w: detected %s, not a pprof profile", ErrUnsupportedKind, det)
	}
	defer func() {
		// The profile parser is third-party code: a hostile file must not take the
		// server down, whatever it trips on.
		if r := recover(); r != nil {
			prof, err = nil, fmt.Errorf("%w: profile parser failed: %v", ErrMalformed, r)
		}
	}()
	p, err := profile.ParseData(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrMalformed, det.Format, err)
	}
	if len(p.SampleType) == 0 {
		return nil, fmt.Errorf("%w: the profile has no sample types", ErrMalformed)
	}
	for _, s := range p.Sample {
		if len(s.Value) != len(p.SampleType) {
			return nil, fmt.Errorf("%w: a sample has %d values for %d sample types", ErrMalformed, len(s.Value), len(p.SampleType))
		}
	}
	if err := p.RemoveUninteresting(); err != nil {
		return nil, fmt.Errorf("%w: drop_frames: %v", ErrMalformed, err)
	}
	return &Profile{p: p, Format: det.Format}, nil
}

// Proto returns the underlying profile. Callers must not modify it.
func (p *Profile) Proto() *profile.Profile { return p.p }

// SampleTypes lists the profile's sample types with their totals, in profile order.
func (p *Profile) SampleTypes() []SampleType {
	totals := make([]int64, len(p.p.SampleType))
	for _, s := range p.p.Sample {
		for i, v := range s.Value {
			totals[i] += abs64(v)
		}
	}
	out := make([]SampleType, len(p.p.SampleType))
	for i, st := range p.p.SampleType {
		out[i] = SampleType{Type: st.Type, Unit: st.Unit, Total: totals[i]}
	}
	return out
}

// DefaultSampleIndex is the sample type pprof shows when none is asked for: the
// profile's default_sample_type, else the last one.
func (p *Profile) DefaultSampleIndex() int {
	i, _ := p.p.SampleIndexByName("")
	return i
}

// SampleIndex resolves a sample type name (or index, or "" for the default) the way
// `go tool pprof -sample_index` does. An unknown name wraps ErrInvalidParameter and
// lists the valid names.
func (p *Profile) SampleIndex(name string) (int, error) {
	i, err := p.p.SampleIndexByName(name)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", ErrInvalidParameter, err)
	}
	return i, nil
}

// Time is when the profile was taken, or the zero time when it does not say.
func (p *Profile) Time() time.Time {
	if p.p.TimeNanos == 0 {
		return time.Time{}
	}
	return time.Unix(0, p.p.TimeNanos).UTC()
}

// Duration is the time the profile covers (CPU and delta profiles), or 0.
func (p *Profile) Duration() time.Duration { return time.Duration(p.p.DurationNanos) }

// Samples is the number of samples in the profile.
func (p *Profile) Samples() int { return len(p.p.Sample) }

// Comments returns the profile's comments and, for profiles of one binary, its name.
func (p *Profile) Comments() []string { return p.p.Comments }

// MainBinary names the main mapping's file (the profiled program), or "".
func (p *Profile) MainBinary() string {
	if len(p.p.Mapping) == 0 {
		return ""
	}
	f := p.p.Mapping[0].File
	if i := strings.LastIndexByte(f, '/'); i >= 0 {
		f = f[i+1:]
	}
	return f
}

// IsGoroutineProfile reports whether this is a goroutine profile (proto form), whose
// samples are goroutine stacks.
func (p *Profile) IsGoroutineProfile() bool {
	return len(p.p.SampleType) == 1 && p.p.SampleType[0].Type == "goroutine"
}

// SameType reports whether two profiles measure the same things (the same sample
// type names and units, in order), so that they can be compared.
func (p *Profile) SameType(q *Profile) bool {
	if len(p.p.SampleType) != len(q.p.SampleType) {
		return false
	}
	for i, st := range p.p.SampleType {
		o := q.p.SampleType[i]
		if st.Type != o.Type || st.Unit != o.Unit {
			return false
		}
	}
	return true
}

// TypeNames renders the sample type names for messages, such as
// "alloc_objects/alloc_space/inuse_objects/inuse_space".
func (p *Profile) TypeNames() string {
	var b bytes.Buffer
	for i, st := range p.p.SampleType {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(st.Type)
	}
	return b.String()
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
