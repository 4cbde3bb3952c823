package main

import (
	"context"

	"github.com/leakui/leakui/analyze/pprof"
)

// runDiff implements `leakui diff [-sample_index NAME] [-nodecount N] [-nodefraction F]
// [-edgefraction F] [-unit U] [the filters of top] [-json] BASE TARGET`. The text
// output is what `go tool pprof -top -diff_base=BASE TARGET` prints with the same
// flags, byte for byte; the filters apply to both profiles, as pprof applies them
// to the two merged.
func runDiff(ctx context.Context, args []string, std stdio) error {
	pf := newProfileFlags("diff", "BASE TARGET", "sample type to compare", std)
	ps, closeAll, err := pf.open(args, 2)
	if err != nil {
		return err
	}
	defer closeAll()
	f, err := pf.filter.compile(std.err, "diff")
	if err != nil {
		return err
	}
	if err := pprof.Comparable(ps[0], ps[1]); err != nil {
		return err
	}
	for i := range ps {
		if ps[i], err = applyFilter(std.err, "diff", pf.fs.Arg(i), ps[i], f); err != nil {
			return err
		}
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
		if *pf.trim == "pprof" {
			d = d.Trimmed(*pf.nodeFraction)
		}
		if n := pf.jsonRows(); n > 0 && len(d.Rows) > n {
			d.Rows = d.Rows[:n]
		}
		return writeJSON(std.out, d)
	}
	return pprof.WriteDiff(std.out, base, target, pf.textOptions(si))
}
