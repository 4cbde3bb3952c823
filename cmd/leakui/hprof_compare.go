package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/hprof"
)

// hprofIndexOptions are the flags of `leakui hprof` that a comparison and a
// view use.
type hprofIndexOptions struct {
	n          int
	asJSON     bool
	maxObjects int64
	tempDir    string
	progress   string
	verbose    bool
}

// runHprofCompare implements `leakui hprof [flags] BASE TARGET [MORE…]`: it
// analyzes each dump in turn (one in memory at a time) into an index in a
// temporary file, then compares the first and the last indexes by class, as
// the web compares the indexes it stores (hprof.Compare over
// hprof.Index.Histogram and Summary, which the web's comparison reads too),
// and writes what grew from the first to the last, with every dump's totals
// when there are more than two.
func runHprofCompare(ctx context.Context, paths []string, opt hprofIndexOptions, std stdio) error {
	idx := make([]*hprof.Index, len(paths))
	for i, path := range paths {
		x, f, err := hprofIndex(ctx, path, opt, std)
		if err != nil {
			return fmt.Errorf("%s: %w", visible(path), err)
		}
		defer f.Close()
		idx[i] = x
	}
	c, err := hprof.Compare(idx[0], idx[len(idx)-1])
	if err != nil {
		return err
	}
	if len(idx) > 2 {
		for _, x := range idx {
			c.Dumps = append(c.Dumps, x.Summary())
		}
	}
	if n := opt.n; n > 0 && len(c.Classes) > n {
		c.Classes = c.Classes[:n]
	}
	if opt.asJSON {
		return jvmWriteJSON(std.out, c)
	}
	printHprofComparison(std.out, paths, c)
	return nil
}

// hprofIndex analyzes the dump at path and returns its index, read from an
// unlinked temporary file in opt.tempDir, and that file, to close.
func hprofIndex(ctx context.Context, path string, opt hprofIndexOptions, std stdio) (*hprof.Index, *os.File, error) {
	var size int64
	if st, err := os.Stat(path); err == nil {
		size = st.Size()
	}
	bar := newHprofProgress(std.err, opt.progress, size, opt.verbose)
	h, err := hprof.Open(path, hprof.OpenOptions{Options: hprof.Options{MaxObjects: opt.maxObjects, OnProgress: bar.update, Context: ctx}, TempDir: opt.tempDir})
	if err != nil {
		return nil, nil, err
	}
	defer h.Close()
	// The report names what the index keeps: every path's fields, the
	// threads' names and the texts of the objects it shows.
	if _, err := h.NewReport(hprof.ReportOptions{Top: opt.n}, nil); err != nil {
		return nil, nil, err
	}
	f, err := os.CreateTemp(opt.tempDir, "leakui-index-*")
	if err != nil {
		return nil, nil, err
	}
	os.Remove(f.Name()) // the open file stays readable; nothing is left behind
	written, err := h.WriteIndex(f)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	bar.done()
	x, err := hprof.OpenIndex(f, written)
	if err != nil {
		f.Close()
		return nil, nil, errors.Join(err, errors.New("the index just written"))
	}
	return x, f, nil
}

// printHprofComparison writes a comparison as text: the dumps, what the
// heap as a whole did, the sentence, the classes by growth and those whose
// instances grew most.
func printHprofComparison(w io.Writer, paths []string, c *hprof.Comparison) {
	dump := func(what, path string, s hprof.IndexSummary) {
		fmt.Fprintf(w, "%s %s (taken %s): %s objects, %s classes; %s reachable in %s objects\n", what, visible(path),
			s.Time.Format("2006-01-02 15:04:05 UTC"), analyze.FormatCount(s.Objects), analyze.FormatCount(int64(s.Classes)),
			analyze.FormatBytes(s.Reachable), analyze.FormatCount(s.ReachableObjects))
	}
	dump("Base  ", paths[0], c.Base)
	for i, s := range c.Dumps[min(1, len(c.Dumps)):max(len(c.Dumps)-1, 0)] {
		dump(fmt.Sprintf("Dump %d", i+2), paths[i+1], s)
	}
	dump("Target", paths[len(paths)-1], c.Target)
	fmt.Fprintf(w, "Change: %s objects, %s shallow, %s reachable\n", analyze.FormatSignedValue(c.ObjectsDelta, ""),
		analyze.FormatSignedValue(c.ShallowDelta, "bytes"), analyze.FormatSignedValue(c.ReachableDelta, "bytes"))
	if c.Sentence != "" {
		fmt.Fprintf(w, "\n%s\n", visible(strings.ReplaceAll(c.Sentence, "`", "")))
	}
	row := func(ch hprof.ClassChange) {
		fmt.Fprintf(w, "%14s %14s %12s %12s  %s\n", analyze.FormatSignedValue(ch.InstancesDelta, ""), analyze.FormatCount(ch.Instances),
			analyze.FormatSignedValue(ch.ShallowDelta, "bytes"), analyze.FormatSignedValue(ch.RetainedDelta, "bytes"), visible(ch.Name))
	}
	header := fmt.Sprintf("%14s %14s %12s %12s  %s\n", "Δ instances", "instances", "Δ shallow", "Δ retained", "class")
	fmt.Fprintf(w, "\nClasses by growth in retained size (the target's instances)\n%s", header)
	for _, ch := range c.Classes {
		row(ch)
	}
	fmt.Fprintf(w, "\nClasses whose instances grew most\n%s", header)
	for _, ch := range c.Suspects {
		row(ch)
	}
}
