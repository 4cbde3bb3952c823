package pprof

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/hostile"
)

// openBytes opens data for OpenStreamed, counting the opens.
func openBytes(data []byte, opens *int) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) {
		if opens != nil {
			*opens++
		}
		return io.NopCloser(bytes.NewReader(data)), nil
	}
}

// TestStreamedTopEqualsTheLoadedProfile: for every fixture, the streamed
// profile's -top text (every sample type, the option sets of
// TestProfileTopTextEqualsTheReference) and its Top table equal the loaded
// profile's, which the anchor tests hold to `go tool pprof`; formats it does
// not stream (legacy text, drop_frames) answer errNotStreamable.
func TestStreamedTopEqualsTheLoadedProfile(t *testing.T) {
	streamed := 0
	for _, path := range fixturesGlob(t, "pprof") {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		p := loadFile(t, path)
		sp, err := openStreamed(openBytes(data, nil), 0, nil)
		if p.Format != "profile.proto" || p.meta.dropFrames != "" {
			if !errors.Is(err, errNotStreamable) {
				t.Errorf("%s (%s): err %v, want errNotStreamable", filepath.Base(path), p.Format, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(path), err)
		}
		streamed++
		compareStreamed(t, filepath.Base(path), p, sp)
		sp.Close()
	}
	if streamed < 8 {
		t.Errorf("only %d fixtures were streamed", streamed)
	}
}

// compareStreamed compares a streamed profile's top tables and texts with
// the loaded profile's.
func compareStreamed(t *testing.T, name string, p *Profile, sp *Profile) {
	t.Helper()
	if sp.textExact() != p.textExact() || sp.IsGoroutineLeakProfile() != p.IsGoroutineLeakProfile() {
		t.Errorf("%s: TextExact %v, goroutineleak %v; loaded %v, %v", name, sp.textExact(), sp.IsGoroutineLeakProfile(), p.textExact(), p.IsGoroutineLeakProfile())
	}
	for si, st := range p.SampleTypes() {
		if got, err := sp.SampleIndex(st.Type); err != nil || got != si && p.meta.sampleTypes[got].typ != st.Type {
			t.Errorf("%s: SampleIndex(%s) = %d, %v; want %d", name, st.Type, got, err, si)
		}
		top, err := sp.Top(si)
		if err != nil {
			t.Fatal(err)
		}
		if want := mustTop(t, p, si); !sameTop(top, want) {
			t.Errorf("%s %s: Top\n%+v\nloaded:\n%+v", name, st.Type, top, want)
		}
		if !p.textExact() {
			continue
		}
		for _, o := range textOptionSets {
			o.SampleIndex = si
			var got, want bytes.Buffer
			if err := sp.WriteTop(&got, o); err != nil {
				t.Fatal(err)
			}
			if err := p.WriteTop(&want, o); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("%s %s %+v:\n%s\nloaded:\n%s", name, st.Type, o, got.String(), want.String())
			}
		}
	}
}

func sameTop(a, b TopResult) bool {
	if a.SampleType != b.SampleType || a.Unit != b.Unit || a.Total != b.Total || a.Shown != b.Shown || len(a.Rows) != len(b.Rows) {
		return false
	}
	for i := range a.Rows {
		if a.Rows[i] != b.Rows[i] {
			return false
		}
	}
	return true
}

// TestStreamedBenchProfileReadsTheFileTwice: the benchmark profile's -top
// -nodecount 3 text is the loaded profile's, from two passes over the file (the
// tables, then the samples: the nodes left out were never inlined, so no third),
// holding a twentieth of what the loaded profile holds.
func TestStreamedBenchProfileReadsTheFileTwice(t *testing.T) {
	if raceEnabled {
		t.Skip("the benchmark profile is slow to make under the race detector")
	}
	data := benchProfile()
	p, err := Open(Reader(bytes.NewReader(data)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	opens := 0
	budget := analyze.NewBudget(0)
	sp, err := openStreamed(openBytes(data, &opens), 0, budget.Child(0))
	if err != nil {
		t.Fatal(err)
	}
	o := textOptionSets[0]
	o.SampleIndex, o.NodeCount = p.DefaultSampleIndex(), 3
	var got, want bytes.Buffer
	if err := sp.WriteTop(&got, o); err != nil {
		t.Fatal(err)
	}
	p.WriteTop(&want, o)
	if got.String() != want.String() {
		t.Errorf("streamed:\n%s\nloaded:\n%s", got.String(), want.String())
	}
	if !strings.Contains(got.String(), "Showing top 3 nodes out of 10") || opens != 2 {
		t.Errorf("%d passes over the file; want 2, with nodes left out:\n%s", opens, got.String())
	}
	held := budget.Used()
	t.Logf("streamed: %d bytes charged; loaded profile: %d bytes", held, p.MemSize())
	if held <= 0 || held > p.MemSize()/20 {
		t.Errorf("the streamed profile charged %d bytes; the loaded one holds %d", held, p.MemSize())
	}
	sp.Close()
	if budget.Used() != 0 {
		t.Errorf("%d bytes still charged after Close", budget.Used())
	}
}

// TestStreamedAmplifyingProfilesAreRefusedWithinTheBudget is
// TestAmplifyingProfilesAreRefusedWithinTheBudget for the streamed profile.
func TestStreamedAmplifyingProfilesAreRefusedWithinTheBudget(t *testing.T) {
	checkAmplifyingRefused(t, func(data []byte, b *analyze.Budget) error {
		_, err := openStreamed(openBytes(data, nil), analyze.DefaultMaxDecompressed, b)
		return err
	})
}

// TestStreamedProfileChangedBetweenPasses: a file that changes after its
// tables were read is an error, not a report mixing two profiles.
func TestStreamedProfileChangedBetweenPasses(t *testing.T) {
	small := hostile.Profile{SampleTypes: hostile.Heap}
	for i := range 3 {
		small.Samples = append(small.Samples, hostile.Sample{Stack: []string{"main.leaf", "main.main"}, Values: []int64{1, int64(i), 1, int64(i)}})
	}
	first, second := small.Encode(), small.Encode()
	small.Samples = small.Samples[:2]
	second = small.Encode()
	opens := 0
	open := func() (io.ReadCloser, error) {
		opens++
		if opens == 1 {
			return io.NopCloser(bytes.NewReader(first)), nil
		}
		return io.NopCloser(bytes.NewReader(second)), nil
	}
	sp, err := openStreamed(open, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	if _, err := sp.Top(0); !isErr(err, analyze.ErrMalformed) || !strings.Contains(err.Error(), "changed while it was read") {
		t.Errorf("err %v, want ErrMalformed saying the file changed", err)
	}
}

// TestStreamedProfileRefusesWhatLoadRefuses: truncated and malformed
// profile.proto is an ErrMalformed error from the streamed profile too.
func TestStreamedProfileRefusesWhatLoadRefuses(t *testing.T) {
	p := hostile.Profile{SampleTypes: hostile.Heap, Samples: []hostile.Sample{{Stack: []string{"main.leaf", "main.main"}, Values: []int64{1, 2, 3, 4}}}}
	data := p.Encode()
	for name, bad := range map[string][]byte{
		"truncated":         data[:len(data)-3],
		"field number 0":    append(append([]byte{}, data...), 0x00, 0x00),
		"wire type 7":       append(append([]byte{}, data...), 0x0f),
		"an 11-byte varint": append(append([]byte{}, data...), 0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01),
	} {
		if _, err := parse(bad); !isErr(err, analyze.ErrMalformed) {
			t.Fatalf("%s: Load says %v", name, err)
		}
		sp, err := openStreamed(openBytes(bad, nil), 0, nil)
		if err == nil {
			_, err = sp.Top(0)
			sp.Close()
		}
		if !isErr(err, analyze.ErrMalformed) {
			t.Errorf("%s: err %v, want ErrMalformed", name, err)
		}
	}
}
