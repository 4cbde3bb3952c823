package pprof

import (
	"encoding/binary"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/series"
)

// machineryPattern matches the functions a goroutine parks and waits in:
// everything in the runtime, internal, sync and time packages (and their
// subpackages). The site of a goroutine is the first frame from the leaf that
// does not match, since every parked goroutine's leaf is runtime.gopark. It is an
// RE2 regexp, so `go tool pprof -hide` accepts it and then shows the same sites as
// flat values.
const machineryPattern = `^(internal|runtime|sync|time)(/[^.]*)?\.`

var seriesMachinery = regexp.MustCompile(machineryPattern)

// Snapshot is one profile of a series and the name it is shown under.
type Snapshot struct {
	Name    string
	Profile *Profile
}

// stackValue is one distinct stack of a profile, at pprof's "functions"
// granularity (samples whose stacks have the same function names are merged).
type stackValue struct {
	// Frames lists the function names, leaf first.
	Frames []string `json:"frames"`
	// Site is the frame the stack is attributed to in a series: the leaf, or for a
	// goroutine profile the first frame outside machineryPattern (the
	// outermost frame below runtime.goexit when every frame matches).
	Site  string `json:"site"`
	Value int64  `json:"value"`
}

// seriesStacks lists the profile's distinct stacks with their values of one sample
// type (an index from SampleIndex) and their sites, largest value first. Samples
// of value 0 and samples without frames are left out.
func (p *Profile) seriesStacks(sampleIndex int) ([]stackValue, error) {
	b := newSeriesBuilder(1, p.IsGoroutineProfile())
	if err := b.add(0, p, sampleIndex); err != nil {
		return nil, err
	}
	out := make([]stackValue, 0, len(b.stacks))
	for _, acc := range b.stacks {
		out = append(out, stackValue{Frames: b.frameNames(acc.frames), Site: b.names[acc.site], Value: acc.values[0]})
	}
	slices.SortFunc(out, func(x, y stackValue) int {
		if x.Value != y.Value {
			if x.Value > y.Value {
				return -1
			}
			return 1
		}
		return slices.Compare(x.Frames, y.Frames)
	})
	return out, nil
}

// Series analyzes three or more profiles of one program taken over time:
// one series per site (the allocating function of a heap profile, the waiting
// function of a goroutine profile), with the site's full stacks as its parts. The
// snapshots are ordered by the profiles' own times when all have one, else taken
// as given. Profiles of different types are refused with ErrMismatch; fewer than
// three, an unknown sample index or a cumulative sample type (alloc_space only
// ever grows) with ErrInvalidParameter.
func Series(snaps []Snapshot, opts series.Options) (*series.Report, error) {
	if len(snaps) < 3 {
		return nil, fmt.Errorf("%w: a series needs at least 3 snapshots of one program, got %d", analyze.ErrInvalidParameter, len(snaps))
	}
	for i, s := range snaps {
		if s.Profile == nil {
			return nil, fmt.Errorf("%w: snapshot %d (%s) has no profile", analyze.ErrInvalidParameter, i+1, s.Name)
		}
	}
	first := snaps[0]
	for i, s := range snaps[1:] {
		if !first.Profile.SameType(s.Profile) {
			kind, firstKind := seriesKind(s.Profile), seriesKind(first.Profile)
			if kind == firstKind { // the same names in other units
				names, firstNames := MismatchNames(s.Profile, first.Profile)
				kind, firstKind = "profile of "+names, "profile of "+firstNames
			}
			return nil, fmt.Errorf("%w: snapshot %d (%s) is a %s but snapshot 1 (%s) is a %s; a series compares snapshots of one kind",
				analyze.ErrMismatch, i+2, s.Name, kind, first.Name, firstKind)
		}
	}
	si, err := seriesSampleIndex(snaps, opts.SampleIndex)
	if err != nil {
		return nil, err
	}
	goroutine := first.Profile.IsGoroutineProfile()
	b := newSeriesBuilder(len(snaps), goroutine)
	b.byStart = goroutine && opts.GoroutineStart
	in := series.Input{
		Labels:       make([]string, len(snaps)),
		Times:        make([]time.Time, len(snaps)),
		ProvenLeaked: first.Profile.IsGoroutineLeakProfile(),
		Warnings:     seriesWarnings(snaps),
	}
	for i, s := range snaps {
		if err := b.add(i, s.Profile, si); err != nil {
			return nil, fmt.Errorf("snapshot %d (%s): %w", i+1, s.Name, err)
		}
		in.Labels[i] = s.Name
		in.Times[i] = s.Profile.Time()
	}
	b.fill(&in)
	st := first.Profile.meta.sampleTypes[si]
	in.SampleType, in.Unit = st.typ, st.unit
	in.By = "allocation site (the allocating function)"
	switch {
	case first.Profile.IsGoroutineLeakProfile():
		in.By = "goroutine site of the goroutines proven leaked by the Go runtime (goroutineleak profile; the first function outside the runtime, internal, sync and time packages)"
	case goroutine && opts.GoroutineStart:
		in.By = "start function of the goroutines (the first function outside the runtime, internal, sync and time packages, counted from the root)"
	case goroutine:
		in.By = "goroutine site (the first function outside the runtime, internal, sync and time packages)"
	case !strings.HasPrefix(st.typ, "inuse_"):
		in.By = "leaf function"
	}
	return series.Analyze(in, opts)
}

// seriesKind names what a profile measures, for messages.
func seriesKind(p *Profile) string {
	switch names := p.typeNames(); {
	case p.IsGoroutineLeakProfile():
		return "goroutineleak profile (goroutines proven leaked by the Go runtime)"
	case p.IsGoroutineProfile():
		return "goroutine profile"
	case slices.Contains(names, "inuse_space"):
		return "heap profile (" + p.TypeNames() + ")"
	case slices.Contains(names, "cpu"):
		return "CPU profile (" + p.TypeNames() + ")"
	}
	return "profile of " + p.TypeNames()
}

// seriesSampleIndex resolves the sample type of a series. By default it prefers
// the in-use counterpart of a cumulative heap type (the allocs profile defaults to
// alloc_space); a cumulative type asked for explicitly is refused unless every
// snapshot is a delta profile.
func seriesSampleIndex(snaps []Snapshot, name string) (int, error) {
	p := snaps[0].Profile
	si, err := p.SampleIndex(name)
	if err != nil {
		return 0, err
	}
	typ := p.meta.sampleTypes[si].typ
	if !seriesCumulative(typ) {
		return si, nil
	}
	for _, s := range snaps {
		if s.Profile.Duration() == 0 {
			if rest, ok := strings.CutPrefix(typ, "alloc_"); ok && name == "" {
				for j, t := range p.meta.sampleTypes {
					if t.typ == "inuse_"+rest {
						return j, nil
					}
				}
			}
			return 0, fmt.Errorf("%w: %s counts everything since the program started, so it only grows: a series needs what is held now (such as inuse_space) or delta profiles (?seconds=N)",
				analyze.ErrInvalidParameter, typ)
		}
	}
	return si, nil
}

// seriesCumulative reports whether a sample type counts since the program
// started (allocations, contentions) rather than what is held now.
func seriesCumulative(typ string) bool {
	return strings.HasPrefix(typ, "alloc_") || typ == "contentions" || typ == "delay"
}

// seriesBuilder merges the stacks of several profiles into series, interning
// function names across them.
type seriesBuilder struct {
	snapshots int
	goroutine bool
	byStart   bool // goroutine sites by start function (series.Options.GoroutineStart)
	names     []string
	byName    map[string]int32
	machinery []bool // per name: matches machineryPattern
	stacks    map[string]*seriesStack
	totals    []int64
	frames    []int32 // scratch
	key       []byte  // scratch
}

// seriesStack is one distinct stack across the snapshots.
type seriesStack struct {
	frames []int32 // name ids, leaf first
	site   int32
	values []int64
}

func newSeriesBuilder(snapshots int, goroutine bool) *seriesBuilder {
	return &seriesBuilder{
		snapshots: snapshots,
		goroutine: goroutine,
		byName:    make(map[string]int32),
		stacks:    make(map[string]*seriesStack),
		totals:    make([]int64, snapshots),
	}
}

// intern returns the id of a function name, adding it when new.
func (b *seriesBuilder) intern(name string) int32 {
	id, ok := b.byName[name]
	if !ok {
		id = int32(len(b.names))
		b.names = append(b.names, name)
		b.byName[name] = id
		b.machinery = append(b.machinery, b.goroutine && seriesMachinery.MatchString(name))
	}
	return id
}

// add adds one snapshot's samples of one sample type.
func (b *seriesBuilder) add(snap int, p *Profile, sampleIndex int) error {
	g := p.tables()
	global := make([]int32, len(g.names))
	for id, name := range g.names {
		global[id] = b.intern(name)
	}
	return p.walkValues(sampleIndex, func(stack []int32, v int64) {
		b.totals[snap] = series.AddClamped(b.totals[snap], series.AbsClamped(v))
		frames := b.frames[:0]
		for _, l := range stack {
			for _, ln := range g.locs[l].lines {
				frames = append(frames, global[ln.node])
			}
		}
		b.frames = frames
		if len(frames) == 0 {
			return
		}
		key := b.key[:0]
		for _, f := range frames {
			key = binary.LittleEndian.AppendUint32(key, uint32(f))
		}
		b.key = key
		st, ok := b.stacks[string(key)]
		if !ok {
			st = &seriesStack{frames: slices.Clone(frames), site: b.site(frames), values: make([]int64, b.snapshots)}
			b.stacks[string(key)] = st
		}
		st.values[snap] = series.AddClamped(st.values[snap], v)
	})
}

// site picks the frame a stack is attributed to.
func (b *seriesBuilder) site(frames []int32) int32 {
	if !b.goroutine {
		return frames[0]
	}
	if b.byStart {
		for i := len(frames) - 1; i >= 0; i-- {
			if !b.machinery[frames[i]] {
				return frames[i]
			}
		}
	}
	for _, f := range frames {
		if !b.machinery[f] {
			return f
		}
	}
	// Only runtime frames (a GC worker, the finalizer goroutine): the function the
	// goroutine was started in.
	for i := len(frames) - 1; i >= 0; i-- {
		if b.names[frames[i]] != "runtime.goexit" {
			return frames[i]
		}
	}
	return frames[0]
}

// frameNames turns name ids into names.
func (b *seriesBuilder) frameNames(ids []int32) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = b.names[id]
	}
	return out
}

// fill sets the input's series (per site), parts (per stack) and totals.
func (b *seriesBuilder) fill(in *series.Input) {
	in.Totals = b.totals
	in.Series = make(map[string][]int64)
	in.Parts = make(map[string][]series.Part)
	for _, st := range b.stacks {
		name := b.names[st.site]
		sum, ok := in.Series[name]
		if !ok {
			sum = make([]int64, b.snapshots)
			in.Series[name] = sum
		}
		for i, v := range st.values {
			sum[i] = series.AddClamped(sum[i], v)
		}
		in.Parts[name] = append(in.Parts[name], series.Part{Frames: b.frameNames(st.frames), Values: st.values})
	}
}
