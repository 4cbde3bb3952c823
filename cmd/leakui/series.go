package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/internal/spark"
)

// The exit statuses of `leakui series` beyond 0 (nothing grew steadily, or it
// shrank), 1 (an error) and 2 (a usage mistake), so that a CI job can fail on a
// leak and on too few snapshots to tell.
const (
	// seriesLeakExit: a leak is suspected (or the Go runtime proved goroutines
	// leaked).
	seriesLeakExit = 3
	// seriesInconclusiveExit: too few snapshots to decide; something grew.
	seriesInconclusiveExit = 4
)

// seriesExitUsage documents the exit statuses under `leakui series -h`.
const seriesExitUsage = `
Exit status:
  0  no steady growth, or shrinking
  1  an error (a file that cannot be read, snapshots of different kinds)
  2  a usage mistake
  3  leak suspected (or goroutines proven leaked by the Go runtime)
  4  inconclusive: too few snapshots to decide, and something grew; the verdict
     says how many more to take
`

// runSeries implements `leakui series [-sample_index NAME] [the filters of top]
// [-json] SNAPSHOT...`: the filters apply to every snapshot.
func runSeries(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("series", "SNAPSHOT SNAPSHOT SNAPSHOT...", std.err)
	flagsUsage := fs.Usage
	fs.Usage = func() {
		flagsUsage()
		fmt.Fprint(std.err, seriesExitUsage)
	}
	sampleIndex := fs.String("sample_index", "", "sample type to follow (name or index; default: as pprof chooses, in-use for heap profiles)")
	asJSON := fs.Bool("json", false, "print one JSON document")
	keepOrder := fs.Bool("keep_order", false, "analyze the snapshots in the order given even when they carry times")
	minShare := fs.Float64("min_share", 0, "smallest growth that counts, as a share of the largest total (0 = 0.005)")
	minGrowth := fs.Int64("min_growth", 0, "smallest growth first→last a leak suspect needs, in the sample type's unit (0 = 524288 for bytes, 3 for counts)")
	n := fs.Int("n", 10, "suspects, growers and shrinkers to print as text (0 for all)")
	maxDecompressed := fs.Int64("max-decompressed", analyze.DefaultMaxDecompressed, "refuse inputs larger than this many bytes after decompression")
	ff := addFilterFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	f, err := ff.compile(std.err, "series")
	if err != nil {
		return err
	}
	if fs.NArg() < 3 {
		fmt.Fprintf(std.err, "leakui series: a series needs at least 3 snapshots, got %d\n", fs.NArg())
		fs.Usage()
		return errUsage
	}
	snaps := make([]pprof.Snapshot, 0, fs.NArg())
	for _, path := range fs.Args() {
		if err := ctx.Err(); err != nil {
			return err
		}
		p, release, err := openFiltered(std.err, "series", path, *maxDecompressed, f)
		if err != nil {
			return err
		}
		defer release()
		snaps = append(snaps, pprof.Snapshot{Name: path, Profile: p})
	}
	rep, err := pprof.Series(snaps, series.Options{
		SampleIndex: *sampleIndex,
		KeepOrder:   *keepOrder,
		Thresholds:  series.Thresholds{MinShare: *minShare, MinGrowth: *minGrowth},
	})
	if err != nil {
		return err
	}
	if *asJSON {
		err = writeJSON(std.out, rep)
	} else {
		err = writeSeriesText(std.out, rep, *n)
	}
	if err != nil {
		return err
	}
	switch rep.Verdict {
	case series.Leak:
		return exitError{seriesLeakExit}
	case series.Inconclusive:
		return exitError{seriesInconclusiveExit}
	}
	return nil
}

// writeSeriesText prints the verdict, the totals line and the tables of suspects,
// growers and shrinkers with a seriesSparkline of each.
func writeSeriesText(w io.Writer, rep *series.Report, n int) error {
	value := func(v int64) string { return analyze.FormatValue(v, rep.Unit) }
	printWarnings(w, rep.Warnings)
	fmt.Fprintf(w, "%s: %s\n\n", strings.ToUpper(rep.VerdictText), visible(rep.Reason)) // the reason names the largest grower
	first, last := rep.Snapshots[0], rep.Snapshots[len(rep.Snapshots)-1]
	when := ""
	if !first.Time.IsZero() && !last.Time.IsZero() {
		when = fmt.Sprintf(", %s → %s (%s)", first.Time.Format(time.DateTime), last.Time.Format(time.DateTime), last.Time.Sub(first.Time).Round(time.Second))
	}
	fmt.Fprintf(w, "Snapshots: %d of %s (%s)%s\n", len(rep.Snapshots), rep.SampleType, rep.Unit, when)
	fmt.Fprintf(w, "Total:     %s → %s (%s)  %s\n", value(rep.Total.First), value(rep.Total.Last), analyze.FormatSignedValue(rep.Total.Growth, rep.Unit), spark.Blocks(rep.Totals))
	fmt.Fprintf(w, "Series by: %s\n", rep.By)
	if rep.RateNote != "" {
		fmt.Fprintf(w, "Rates:     %s\n", rep.RateNote)
	}
	for _, list := range []struct {
		title string
		rows  []series.Suspect
	}{
		{"Suspects", rep.Suspects},
		{"Growers that are not suspects", rep.Growers},
		{"Shrinking steadily", rep.Shrinkers},
	} {
		if len(list.rows) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s (%d):\n", list.title, len(list.rows))
		rows := list.rows
		if n > 0 && len(rows) > n {
			rows = rows[:n]
		}
		if err := writeSeriesTable(w, rows, rep.Unit); err != nil {
			return err
		}
		if len(rows) < len(list.rows) {
			fmt.Fprintf(w, "  … %d more (-n 0 shows all)\n", len(list.rows)-len(rows))
		}
	}
	return nil
}

// writeSeriesTable prints one list: numbers, a seriesSparkline, the name, and below each
// row its first stack (or why it is not a suspect).
func writeSeriesTable(w io.Writer, rows []series.Suspect, unit string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  growth\tper snapshot\tper minute\tsteps up\tR²\tconfidence\tvalues\tname")
	for _, s := range rows {
		perMinute := "-"
		if s.SlopePerMinute != nil {
			perMinute = seriesSignedRate(*s.SlopePerMinute, unit)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d/%d\t%.2f\t%.2f\t%s\t%s\n",
			analyze.FormatSignedValue(s.Growth, unit), seriesSignedRate(s.Slope, unit), perMinute,
			s.GrewSteps, s.Steps, s.R2, s.Confidence, spark.Blocks(s.Values), visible(s.Name))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range rows {
		fmt.Fprintf(w, "  %s\n", visible(s.Name))
		if s.Why != "" {
			fmt.Fprintf(w, "      not steady: %s\n", visible(s.Why))
		}
		if len(s.Stacks) > 0 && (s.Why == "" || s.Stacks[0].Passed) {
			st := s.Stacks[0]
			fmt.Fprintf(w, "      %s in stack 1 of %d: %s\n", analyze.FormatSignedValue(st.Growth, unit),
				len(s.Stacks)+s.StacksOmitted, seriesStackLine(st.Frames, 8))
		}
	}
	return nil
}

// seriesStackLine renders up to max frames, leaf first.
func seriesStackLine(frames []string, max int) string {
	if len(frames) <= max {
		return visible(strings.Join(frames, " ← "))
	}
	return visible(strings.Join(frames[:max], " ← ")) + fmt.Sprintf(" ← … (%d more)", len(frames)-max)
}

// seriesSignedRate renders a slope: whole units for bytes and large counts, two
// decimals for small counts.
func seriesSignedRate(f float64, unit string) string {
	sign := ""
	if f > 0 {
		sign = "+"
	}
	if unit == "bytes" || unit == "nanoseconds" || f >= 100 || f <= -100 {
		if f >= 9e18 || f <= -9e18 {
			return fmt.Sprintf("%s%.3g", sign, f)
		}
		return sign + analyze.FormatValue(int64(f), unit)
	}
	return fmt.Sprintf("%s%.2f", sign, f)
}
