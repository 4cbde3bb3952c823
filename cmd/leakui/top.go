package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
)

// runTop implements `leakui top [-sample_index NAME] [-n 20] [-json] PROFILE`.
func runTop(ctx context.Context, args []string, std stdio) error {
	pf := newProfileFlags("top", "PROFILE", "sample type to show", std)
	ps, err := pf.load(args, 1)
	if err != nil {
		return err
	}
	p := ps[0]
	si, err := p.SampleIndex(*pf.sampleIndex)
	if err != nil {
		return err
	}
	top := p.Top(si)
	if *pf.n > 0 && len(top.Rows) > *pf.n {
		top.Rows = top.Rows[:*pf.n]
	}
	if *pf.asJSON {
		return writeJSON(std.out, top)
	}
	return writeTopText(std.out, top)
}

// profileFlags are the flags top and diff share, named as go tool pprof names them.
type profileFlags struct {
	fs              *flag.FlagSet
	sampleIndex     *string
	n               *int
	asJSON          *bool
	maxDecompressed *int64
}

// newProfileFlags registers the shared flags of the command called name, whose
// arguments argsUsage names; sampleIndexUsage begins the -sample_index help.
func newProfileFlags(name, argsUsage, sampleIndexUsage string, std stdio) profileFlags {
	fs := newFlagSet(name, argsUsage, std.err)
	return profileFlags{
		fs:              fs,
		sampleIndex:     fs.String("sample_index", "", sampleIndexUsage+" (name or index; default as pprof chooses)"),
		n:               fs.Int("n", 20, "number of rows (0 for all)"),
		asJSON:          fs.Bool("json", false, "print one JSON document"),
		maxDecompressed: fs.Int64("max-decompressed", analyze.DefaultMaxDecompressed, "refuse inputs larger than this many bytes after decompression"),
	}
}

// load parses args, which must name exactly files profiles, and loads them in order.
func (pf profileFlags) load(args []string, files int) ([]*pprof.Profile, error) {
	if err := parseFlags(pf.fs, args); err != nil {
		return nil, err
	}
	if pf.fs.NArg() != files {
		pf.fs.Usage()
		return nil, errUsage
	}
	out := make([]*pprof.Profile, files)
	for i := range out {
		p, err := loadProfileFile(pf.fs.Arg(i), *pf.maxDecompressed)
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

// loadProfileFile opens and parses one profile file ("-" for stdin is not supported:
// profiles are files).
func loadProfileFile(path string, limit int64) (*pprof.Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := pprof.Load(f, limit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// writeTopText prints the table in pprof's column layout with human units.
func writeTopText(w io.Writer, top pprof.TopResult) error {
	fmt.Fprintf(w, "Type: %s\nTotal: %s\n", top.SampleType, analyze.FormatValue(top.Total, top.Unit))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "flat\tflat%\tsum%\tcum\tcum%\t")
	var sum int64
	for _, r := range top.Rows {
		sum += r.Flat
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t  %s\n",
			analyze.FormatValue(r.Flat, top.Unit), analyze.Percent(r.Flat, top.Total),
			analyze.Percent(sum, top.Total), analyze.FormatValue(r.Cum, top.Unit),
			analyze.Percent(r.Cum, top.Total), r.Name)
	}
	return tw.Flush()
}

// writeJSON writes v as one indented JSON document.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
