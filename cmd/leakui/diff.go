package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
)

// runDiff implements `leakui diff [-sample_index NAME] [-n 20] [-json] BASE TARGET`.
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
	d, err := pprof.Diff(base, target, si)
	if err != nil {
		return err
	}
	if *pf.n > 0 && len(d.Rows) > *pf.n {
		d.Rows = d.Rows[:*pf.n]
	}
	if *pf.asJSON {
		return writeJSON(std.out, d)
	}
	return writeDiffText(std.out, d)
}

// writeDiffText prints the diff in pprof's column layout, with each side's flat.
func writeDiffText(w io.Writer, d pprof.DiffResult) error {
	fmt.Fprintf(w, "Type: %s\nBase: %s  Target: %s  Change: %s (%s of the base)\n", d.SampleType,
		analyze.FormatValue(d.BaseTotal, d.Unit), analyze.FormatValue(d.TargetTotal, d.Unit),
		analyze.FormatValue(d.Change(), d.Unit), analyze.SignedPercent(d.Change(), d.BaseTotal))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "flat\tflat%\tcum\tcum%\tbase flat\ttarget flat\t")
	for _, r := range d.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t  %s\n",
			analyze.FormatValue(r.Flat, d.Unit), analyze.Percent(r.Flat, d.Total),
			analyze.FormatValue(r.Cum, d.Unit), analyze.Percent(r.Cum, d.Total),
			analyze.FormatValue(r.BaseFlat, d.Unit), analyze.FormatValue(r.TargetFlat, d.Unit), r.Name)
	}
	return tw.Flush()
}
