package pprof

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/fixtures"
)

// refText prints the reference text of one or two profile files.
func refText(t *testing.T, o TextOptions, datas ...[]byte) string {
	t.Helper()
	refs := make([]*profile.Profile, len(datas))
	for i, d := range datas {
		rc, _, err := analyze.Decompress(bytes.NewReader(d), 0)
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		if err != nil {
			t.Fatal(err)
		}
		if refs[i], err = referenceProfile(data, nil); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	var err error
	if len(refs) == 1 {
		err = writeReferenceTop(&b, refs[0], nil, o)
	} else {
		err = writeReferenceDiff(&b, refs[0], refs[1], nil, o)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// textOptionSets are the -top options the text comparisons run with.
var textOptionSets = []TextOptions{
	{NodeFraction: DefaultNodeFraction, EdgeFraction: DefaultEdgeFraction, Unit: DefaultUnit},
	{NodeFraction: 0, EdgeFraction: DefaultEdgeFraction, Unit: DefaultUnit},
	{NodeCount: 5, NodeFraction: DefaultNodeFraction, EdgeFraction: DefaultEdgeFraction, Unit: "B"},
}

// TestProfileTopTextEqualsTheReference: for every fixture leakui's decoder
// reads exactly, the -top text printed from its call graph equals, byte for byte,
// the text printed through the reference parser (which the anchor tests hold to
// `go tool pprof`), for every sample type, and with several option sets for the
// default one.
func TestProfileTopTextEqualsTheReference(t *testing.T) {
	exact := 0
	for _, path := range fixturesGlob(t, "pprof") {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		p := loadFile(t, path)
		if !p.textExact() {
			continue
		}
		exact++
		for si := range p.SampleTypes() {
			for k, o := range textOptionSets {
				if k > 0 && si != p.DefaultSampleIndex() {
					continue // the other option sets on the default sample type only
				}
				o.SampleIndex = si
				var got bytes.Buffer
				if err := p.WriteTop(&got, o); err != nil {
					t.Fatal(err)
				}
				if want := refText(t, o, data); got.String() != want {
					t.Errorf("%s %d %+v:\n%s\nreference:\n%s", filepath.Base(path), si, o, got.String(), want)
				}
			}
		}
	}
	if exact < 8 {
		t.Errorf("only %d fixtures are TextExact", exact)
	}
	if raceEnabled {
		return // the benchmark profile is slow to make and parse under the race detector
	}
	bench := benchProfile()
	p, err := Open(Reader(bytes.NewReader(bench)), Options{})
	if err != nil || !p.textExact() {
		t.Fatalf("the benchmark profile: %v, exact %v", err, p != nil && p.textExact())
	}
	var got bytes.Buffer
	p.WriteTop(&got, textOptionSets[0])
	if want := refText(t, textOptionSets[0], bench); got.String() != want {
		t.Errorf("the benchmark profile:\n%s\nreference:\n%s", got.String(), want)
	}
}

// TestProfileDiffTextEqualsTheReference: the same for -diff_base over the pairs
// of fixtures of one type.
func TestProfileDiffTextEqualsTheReference(t *testing.T) {
	for _, pair := range [][2]string{
		{"parca-self-heap-t0-1644509272.pb.gz", "parca-self-heap-t9-1644509299.pb.gz"},
		{"parca-self-heap-t6-1644509290.pb.gz", "parca-self-heap-t0-1644509272.pb.gz"},
		{"goprofnotes-goroutine-snap1-debug0.pb.gz", "goprofnotes-goroutine-snap2-debug0.pb.gz"},
	} {
		var datas [2][]byte
		var ps [2]*Profile
		for i, name := range pair {
			path := fixtures.Path(t, "pprof", name)
			var err error
			if datas[i], err = os.ReadFile(path); err != nil {
				t.Fatal(err)
			}
			ps[i] = loadFile(t, path)
		}
		if !ps[0].textExact() || !ps[1].textExact() {
			t.Fatalf("%v: not TextExact", pair)
		}
		for si := range ps[1].SampleTypes() {
			for _, o := range textOptionSets {
				o.SampleIndex = si
				var got bytes.Buffer
				if err := WriteDiff(&got, ps[0], ps[1], o); err != nil {
					t.Fatal(err)
				}
				if want := refText(t, o, datas[0], datas[1]); got.String() != want {
					t.Errorf("%v %d %+v:\n%s\nreference:\n%s", pair, si, o, got.String(), want)
				}
			}
		}
	}
}
