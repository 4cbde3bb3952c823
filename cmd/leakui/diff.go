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
	fs := newFlagSet("diff", "BASE TARGET", std.err)
	sampleIndex := fs.String("sample_index", "", "sample type to compare (name or index; default as pprof chooses)")
	n := fs.Int("n", 20, "number of rows (0 for all)")
	asJSON := fs.Bool("json", false, "print one JSON document")
	maxDecompressed := fs.Int64("max-decompressed", analyze.DefaultMaxDecompressed, "refuse inputs larger than this many bytes after decompression")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return errUsage
	}
	base, err := loadProfileFile(fs.Arg(0), *maxDecompressed)
	if err != nil {
		return err
	}
	target, err := loadProfileFile(fs.Arg(1), *maxDecompressed)
	if err != nil {
		return err
	}
	si, err := target.SampleIndex(*sampleIndex)
	if err != nil {
		return err
	}
	d, err := pprof.Diff(base, target, si)
	if err != nil {
		return err
	}
	if *n > 0 && len(d.Rows) > *n {
		d.Rows = d.Rows[:*n]
	}
	if *asJSON {
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
