package pprof

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"testing"

	"github.com/google/pprof/profile"
)

// FuzzParseProfile feeds arbitrary bytes to the profile loader. It must never panic,
// and whenever both leakui's decoder and the reference parser accept a
// profile.proto, their top tables must agree for every sample type: the reference
// parser is the oracle.
func FuzzParseProfile(f *testing.F) {
	addProfileSeeds(f)
	f.Add([]byte("heap profile: 1: 2 [3: 4] @ heap/1048576\n1: 2 [3: 4] @ 0x1 0x2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parse(data)
		if err != nil || p.Format != "profile.proto" {
			return
		}
		ref, err := profile.ParseData(data)
		if err != nil || ref.DropFrames != "" {
			return // leakui reads some protos pprof refuses (e.g. unknown fields); fine
		}
		want := &Profile{graph: graphFromProfile(ref), meta: metaFromProfile(ref)}
		if len(want.meta.sampleTypes) != len(p.meta.sampleTypes) {
			t.Fatalf("sample types: %d vs reference %d", len(p.meta.sampleTypes), len(want.meta.sampleTypes))
		}
		for si := range p.meta.sampleTypes {
			got, exp := mustTop(t, p, si), mustTop(t, want, si)
			if got.Total != exp.Total || len(got.Rows) != len(exp.Rows) {
				t.Fatalf("sample type %d: total %d rows %d; reference %d rows %d", si, got.Total, len(got.Rows), exp.Total, len(exp.Rows))
			}
			for i := range got.Rows {
				if got.Rows[i] != exp.Rows[i] {
					t.Fatalf("sample type %d row %d: %+v; reference %+v", si, i, got.Rows[i], exp.Rows[i])
				}
			}
		}
	})
}

// addProfileSeeds adds the testdata profiles of at most 64 KiB (the fuzzer
// works better on small seeds) to f's corpus, gzip taken off.
func addProfileSeeds(f *testing.F) {
	for _, path := range fixturesGlob(f, "pprof") {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) > 64<<10 {
			continue // the fuzzer works better on small seeds
		}
		if zr, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
			if raw, err := io.ReadAll(zr); err == nil {
				data = raw
			}
		}
		f.Add(data)
	}
}
