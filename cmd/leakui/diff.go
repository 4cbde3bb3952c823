package main

import (
	"context"

	"github.com/leakui/leakui/analyze/pprof"
)

// runDiff implements `leakui diff [-sample_index NAME] [-nodecount N] [-nodefraction F]
// [-edgefraction F] [-unit U] [-json] BASE TARGET`. The text output is what
// `go tool pprof -top -diff_base=BASE TARGET` prints with the same flags, byte for byte.
func runDiff(ctx context.Context, args []string, std stdio) error {
	pf := newProfileFlags("diff", "BASE TARGET", "sample type to compare", std)
	ps, err := pf.load(args, 2)
	if err != nil {
		return err
	}
	base, target := ps[0], ps[1]
	si, err := target.SampleIndex(*pf.sampleIndex)
	if err != nil {
		return err
	}
	if *pf.asJSON {
		d, err := pprof.Diff(base, target, si)
		if err != nil {
			return err
		}
		if n := pf.jsonRows(); n > 0 && len(d.Rows) > n {
			d.Rows = d.Rows[:n]
		}
		return writeJSON(std.out, d)
	}
	if err := pprof.Comparable(base, target); err != nil {
		return err
	}
	if base.TextExact() && target.TextExact() {
		return pprof.WriteProfileDiffText(std.out, base, target, pf.textOptions(si))
	}
	refs := make([]*pprof.Reference, 2)
	for i := range refs {
		if refs[i], err = loadReferenceFile(pf.fs.Arg(i), *pf.maxDecompressed); err != nil {
			return err
		}
	}
	return pprof.WriteDiffText(std.out, refs[0], refs[1], pf.textOptions(si))
}
