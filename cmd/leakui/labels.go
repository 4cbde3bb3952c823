package main

import (
	"context"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
)

// runLabels implements `leakui labels [-sample_index NAME] [-unit U] [the
// filters of top] [-json] PROFILE`: the values of each label key of the
// profile's samples with their share. The text output is what
// `go tool pprof -tags` prints with the same flags, byte for byte.
func runLabels(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("labels", "PROFILE", std.err)
	sampleIndex := fs.String("sample_index", "", "sample type the values are summed over (name or index; default as pprof chooses)")
	unit := fs.String("unit", pprof.DefaultUnit, "unit of the text output and of numeric labels' values, as pprof's -unit (minimum chooses)")
	asJSON := fs.Bool("json", false, "print one JSON document of exact values")
	maxDecompressed := fs.Int64("max-decompressed", analyze.DefaultMaxDecompressed, "refuse inputs larger than this many bytes after decompression")
	ff := addFilterFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	f, err := ff.compile(std.err, "labels")
	if err != nil {
		return err
	}
	path := fs.Arg(0)
	p, release, err := openFiltered(std.err, "labels", path, *maxDecompressed, f)
	if err != nil {
		return err
	}
	defer release()
	si, err := p.SampleIndex(*sampleIndex)
	if err != nil {
		return err
	}
	o := pprof.TextOptions{SampleIndex: si, Unit: *unit}
	if *asJSON {
		l, err := p.Labels(o)
		if err != nil {
			return err
		}
		return writeJSON(std.out, l)
	}
	return p.WriteLabels(std.out, o)
}
