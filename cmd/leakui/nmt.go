package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/jvm"
)

// nmtJSON is `leakui nmt -json`: the report (amounts in bytes, whatever scale it was
// printed in), the comparison with BASE or with the baseline of a summary.diff, and
// the native leak signature lifted to the top (null when absent).
type nmtJSON struct {
	*jvm.NMT
	Headline   string          `json:"headline"`
	Comparison *jvm.NMTDiff    `json:"comparison"`
	NativeLeak *jvm.NativeLeak `json:"native_leak"`
}

// runNMT implements `leakui nmt [flags] SUMMARY [BASE]`. It exits with status 3 when
// native memory outside the Java heap grows while the heap does not.
func runNMT(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("nmt", "SUMMARY [BASE]", std.err)
	pick := fs.Int("snapshot", -1, "which report of a file holding several: 1 is the first, -1 the last")
	basePick := fs.Int("base-snapshot", -1, "which report of BASE, counted the same way (BASE may be SUMMARY itself)")
	asJSON := fs.Bool("json", false, "write one JSON document on stdout")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		fs.Usage()
		return errUsage
	}
	target, err := jvmNMT(fs.Arg(0), *pick, std)
	if err != nil {
		return err
	}
	out := &nmtJSON{NMT: target, Headline: target.Headline(), Comparison: target.BaselineDiff()}
	compared := "its baseline"
	if fs.NArg() == 2 {
		base, err := jvmNMT(fs.Arg(1), *basePick, std)
		if err != nil {
			return err
		}
		out.Comparison, compared = jvm.DiffNMT(base, target), fs.Arg(1)
	}
	if out.Comparison != nil {
		out.NativeLeak = out.Comparison.NativeLeak
	}
	if *asJSON {
		err = jvmWriteJSON(std.out, out)
	} else {
		if out.Comparison != nil {
			printWarnings(std.out, out.Comparison.Warnings)
		}
		printNMT(std.out, fs.Arg(0), out, compared)
	}
	if err == nil && out.NativeLeak != nil {
		return exitError{3}
	}
	return err
}

// jvmNMT reads the chosen native memory report of a file.
func jvmNMT(path string, pick int, std stdio) (*jvm.NMT, error) {
	var all []*jvm.NMT
	err := jvmRead(path, std, func(r io.Reader) (err error) {
		all, err = jvm.ParseNMTs(r)
		return err
	})
	if err != nil {
		return nil, err
	}
	return jvmPick(all, pick, path, "native memory reports", std)
}

func printNMT(w io.Writer, path string, out *nmtJSON, compared string) {
	n := out.NMT
	scale := n.Scale
	if scale == "" {
		scale = "bytes"
	}
	kind := "summary"
	if n.Diff {
		kind = "summary.diff"
	}
	fmt.Fprintf(w, "JVM native memory of %s (%s, printed in %s)\n", path, kind, scale)
	fmt.Fprintf(w, "Committed %s of %s reserved; Java heap %s, outside the heap %s\n", analyze.FormatBytes(n.TotalCommitted),
		analyze.FormatBytes(n.TotalReserved), analyze.FormatBytes(out.heapCommitted()), analyze.FormatBytes(n.TotalCommitted-out.heapCommitted()))
	for _, warn := range n.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	fmt.Fprintf(w, "\n%-26s %12s %12s %6s\n", "category", "committed", "reserved", "share")
	for _, c := range n.ByCommitted() {
		bar := 0
		if n.TotalCommitted > 0 {
			bar = int(c.Committed * 40 / n.TotalCommitted)
		}
		fmt.Fprintf(w, "%-26s %12s %12s %6s  %s\n", c.Name, analyze.FormatBytes(c.Committed), analyze.FormatBytes(c.Reserved),
			jvmShare(c.Committed, n.TotalCommitted), strings.Repeat("█", bar))
	}
	d := out.Comparison
	if d == nil {
		return
	}
	fmt.Fprintf(w, "\nCompared with %s:\n%s\n", compared, d.Headline())
	if d.NativeLeak != nil {
		fmt.Fprintf(w, "\nNATIVE LEAK: %s\n", d.NativeLeak.Message)
	}
	fmt.Fprintf(w, "\n%-26s %12s %12s %12s %12s\n", "category", "committed", "change", "reserved", "change")
	for _, c := range d.Categories {
		if c.CommittedDelta == 0 && c.ReservedDelta == 0 {
			continue
		}
		fmt.Fprintf(w, "%-26s %12s %12s %12s %12s\n", c.Name, analyze.FormatBytes(c.Committed), analyze.FormatSignedValue(c.CommittedDelta, "bytes"),
			analyze.FormatBytes(c.Reserved), analyze.FormatSignedValue(c.ReservedDelta, "bytes"))
	}
}

func (o *nmtJSON) heapCommitted() int64 {
	c, _ := o.Category(jvm.HeapCategory)
	return c.Committed
}
