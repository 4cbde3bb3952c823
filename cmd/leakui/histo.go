package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/jvm"
)

// histoJSON is `leakui histo -json` for one histogram: the analyze type, whose
// total_instances, total_bytes and classes [{name, instances, bytes}] are the
// contract, with the classes cut to -n.
type histoJSON struct {
	*jvm.Histogram
	Headline string `json:"headline"`
}

// histoDiffJSON is `leakui histo -json HISTOGRAM BASE`: totals and rows as target −
// base (like `leakui diff -json`), with base_… and target_… beside them.
type histoDiffJSON struct {
	*jvm.HistogramDiff
	Suspects []jvm.ClassChange `json:"suspects"`
	Headline string            `json:"headline"`
}

// runHisto implements `leakui histo [flags] HISTOGRAM [BASE]`.
func runHisto(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("histo", "HISTOGRAM [BASE]", std.err)
	n := fs.Int("n", 20, "show the top `N` classes (0: all)")
	sortBy := fs.String("sort", "bytes", "rank classes (and growth) by `bytes` or instances")
	pick := fs.Int("snapshot", -1, "which histogram of a file holding several (a log with -XX:+PrintClassHistogram): 1 is the first, -1 the last")
	basePick := fs.Int("base-snapshot", -1, "which histogram of BASE, counted the same way")
	asJSON := fs.Bool("json", false, "write one JSON document on stdout")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		fs.Usage()
		return errUsage
	}
	order := jvm.ByBytes
	switch *sortBy {
	case "bytes":
	case "instances":
		order = jvm.ByInstances
	default:
		fmt.Fprintf(std.err, "leakui histo: -sort %q: want bytes or instances\n", *sortBy)
		return errUsage
	}
	target, err := jvmHistogram(fs.Arg(0), *pick, std)
	if err != nil {
		return err
	}
	if fs.NArg() == 1 {
		out := &histoJSON{Histogram: target, Headline: target.Headline()}
		shown := *out.Histogram
		shown.Classes = jvmFirst(target.Ranked(order), *n)
		out.Histogram = &shown
		if *asJSON {
			return jvmWriteJSON(std.out, out)
		}
		printHisto(std.out, fs.Arg(0), target, shown.Classes)
		return nil
	}
	base, err := jvmHistogram(fs.Arg(1), *basePick, std)
	if err != nil {
		return err
	}
	d := jvm.DiffHistograms(base, target)
	if *asJSON {
		shown := *d
		shown.Classes = jvmFirst(d.Ranked(order), *n)
		return jvmWriteJSON(std.out, &histoDiffJSON{HistogramDiff: &shown, Suspects: d.Suspects(*n), Headline: d.Headline()})
	}
	printWarnings(std.out, d.Warnings)
	printHistoDiff(std.out, fs.Arg(1), fs.Arg(0), d, *n)
	return nil
}

// printWarnings prints why two files, or the snapshots of a series, may not be
// comparable, before anything else, and a blank line after them.
func printWarnings(w io.Writer, warnings []string) {
	for _, warning := range warnings {
		fmt.Fprintf(w, "WARNING: %s\n", warning)
	}
	if len(warnings) > 0 {
		fmt.Fprintln(w)
	}
}

// jvmHistogram reads the chosen histogram of a file.
func jvmHistogram(path string, pick int, std stdio) (*jvm.Histogram, error) {
	var all []*jvm.Histogram
	err := jvmRead(path, std, func(r io.Reader) (err error) {
		all, err = jvm.ParseHistograms(r)
		return err
	})
	if err != nil {
		return nil, err
	}
	return jvmPick(all, pick, path, "class histograms", std)
}

func printHisto(w io.Writer, path string, h *jvm.Histogram, rows []jvm.Class) {
	fmt.Fprintf(w, "JVM class histogram of %s (%s", path, h.Format)
	if !h.Time.IsZero() {
		fmt.Fprintf(w, ", taken %s", h.Time.Format("2006-01-02 15:04:05"))
	}
	fmt.Fprintf(w, ")\n%s classes, %s instances, %s (%s bytes)\n", analyze.FormatCount(int64(len(h.Classes))),
		analyze.FormatCount(h.TotalInstances), analyze.FormatBytes(h.TotalBytes), analyze.FormatCount(h.TotalBytes))
	for _, warn := range h.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	fmt.Fprintf(w, "\n%6s %14s %16s %6s  %s\n", "#", "instances", "bytes", "share", "class")
	for _, c := range rows {
		fmt.Fprintf(w, "%6d %14s %16s %6s  %s\n", c.Rank, analyze.FormatCount(c.Instances), analyze.FormatCount(c.Bytes),
			jvmShare(c.Bytes, h.TotalBytes), jvmClassName(c.Name))
	}
}

func printHistoDiff(w io.Writer, basePath, targetPath string, d *jvm.HistogramDiff, n int) {
	fmt.Fprintf(w, "JVM class histogram diff: %s → %s\n", basePath, targetPath)
	fmt.Fprintf(w, "Objects: %s → %s (%s), %s → %s instances (%s)\n", analyze.FormatBytes(d.BaseTotalBytes), analyze.FormatBytes(d.TargetTotalBytes),
		analyze.FormatSignedValue(d.TotalBytes, "bytes"), analyze.FormatCount(d.BaseTotalInstances), analyze.FormatCount(d.TargetTotalInstances), analyze.FormatSignedValue(d.TotalInstances, "count"))
	for _, table := range []struct {
		title string
		rows  []jvm.ClassChange
	}{
		{"Growth in bytes", d.Grown(jvm.ByBytes, n)},
		{"Growth in instances", d.Grown(jvm.ByInstances, n)},
		{"Application classes with more instances (leak suspects)", d.Suspects(n)},
	} {
		fmt.Fprintf(w, "\n%s:\n", table.title)
		if len(table.rows) == 0 {
			fmt.Fprintln(w, "  (none)")
			continue
		}
		fmt.Fprintf(w, "%12s %12s %14s %14s  %s\n", "bytes", "change", "instances", "change", "class")
		for _, c := range table.rows {
			fmt.Fprintf(w, "%12s %12s %14s %14s  %s\n", analyze.FormatBytes(c.TargetBytes), analyze.FormatSignedValue(c.Bytes, "bytes"),
				analyze.FormatCount(c.TargetInstances), analyze.FormatSignedValue(c.Instances, "count"), jvmClassName(c.Name))
		}
	}
}

// The helpers below are shared by the JVM commands (histo, threads, nmt).

// jvmRead opens path ("-" for standard input), removes one layer of gzip or zstd and
// hands the text to parse (UTF-16 transcoded to UTF-8, see analyze.Decompress);
// standard error says when the text was UTF-16 or its lines carried a log
// collector's prefix. Errors name the file, and when it holds nothing parse
// understands, say what it looks like and which command reads that.
func jvmRead(path string, std stdio, parse func(io.Reader) error) error {
	var in io.Reader = std.in
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	rc, _, err := analyze.Decompress(in, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, analyze.SniffSize)
	head, _ := br.Peek(analyze.SniffSize)
	detected := analyze.DetectKind(head)
	detected.Encoding = analyze.EncodingOf(rc)
	if notes := detected.Notes(); notes != "" {
		fmt.Fprintf(std.err, "leakui: %s: read as %s\n", path, notes)
	}
	if err := parse(br); err != nil {
		if errors.Is(err, analyze.ErrUnsupportedKind) {
			return fmt.Errorf("%s: %w (it looks like a %s%s)", path, err, detected, jvmCommandFor(detected.Kind))
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// jvmCommandFor names the command that reads a kind, as a hint.
func jvmCommandFor(k analyze.Kind) string {
	cmd := map[analyze.Kind]string{
		analyze.KindJVMHistogram: "histo", analyze.KindJVMThreads: "threads", analyze.KindJVMNMT: "nmt",
		analyze.KindProfile: "top", analyze.KindGoroutines: "goroutines", analyze.KindLog: "count",
	}[k]
	if cmd == "" {
		return ""
	}
	return "; try leakui " + cmd
}

// jvmPick returns the i-th of a file's snapshots, counted from 1, or from the end
// when negative, and notes on stderr when the file holds several.
func jvmPick[T any](all []T, i int, path, what string, std stdio) (T, error) {
	var zero T
	j := i
	if j < 0 {
		j += len(all) + 1
	}
	if j < 1 || j > len(all) {
		return zero, fmt.Errorf("%s holds %d %s; snapshot %d: %w", path, len(all), what, i, analyze.ErrInvalidParameter)
	}
	if len(all) > 1 {
		fmt.Fprintf(std.err, "leakui: %s holds %d %s; using number %d (choose with -snapshot or -base-snapshot)\n", path, len(all), what, j)
	}
	return all[j-1], nil
}

// jvmWriteJSON writes v as one indented JSON document.
func jvmWriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func jvmFirst[T any](s []T, n int) []T {
	if n > 0 && len(s) > n {
		return s[:n]
	}
	return s
}

func jvmShare(part, whole int64) string {
	if whole == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", float64(part)*100/float64(whole))
}

// jvmClassName renders a class with its Java spelling when that differs: "[B (byte[])".
func jvmClassName(name string) string {
	if d := jvm.ClassDisplayName(name); d != name {
		return name + " (" + d + ")"
	}
	return name
}
