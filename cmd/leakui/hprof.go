package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/hprof"
)

// hprofFailExit is the exit status of `leakui hprof -fail-share F` when a suspect
// retains more than F of the heap.
const hprofFailExit = 3

// runHprof implements `leakui hprof [flags] DUMP` and, with two dumps,
// `leakui hprof [flags] BASE TARGET [MORE…]` (runHprofCompare).
func runHprof(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("hprof", "DUMP | BASE TARGET [MORE…]", std.err)
	n := fs.Int("n", 20, "show the top `N` rows of the histogram, the dominator tree and the other lists (0: all)")
	asJSON := fs.Bool("json", false, "write one JSON document on stdout")
	suspectShare := fs.Float64("suspect-share", 0.1, "the smallest `share` of the reachable heap a leak suspect retains")
	failShare := fs.Float64("fail-share", 0, "exit with status 3 when a suspect retains more than this `share` of the heap (0: never)")
	maxObjects := fs.Int64("max-objects", hprof.DefaultMaxObjects, "refuse dumps of more than `N` objects")
	tempDir := fs.String("tmp", "", "`directory` for the temporary files: a compressed dump's inflated copy, a large dump's arrays, a comparison's indexes (default: the system's)")
	verbose := fs.Bool("v", false, "print each stage's time, the heap in use and the resident set on stderr")
	progressMode := fs.String("progress", "auto", "show the analysis's progress on stderr: `auto` (a bar on a terminal, lines elsewhere for dumps of 64 MiB and more), always or never")
	view := fs.String("view", "", "write one view of the dump's index instead of the report: `by-class` (the children of -object, else the dominator tree's top level, grouped), by-loader (the dominator tree's top level grouped), unreachable (the objects not strongly reachable, by class), duplicate-classes, or path (from a GC root to -object, strong references only)")
	object := fs.Int64("object", -1, "the object `ordinal` (the JSON's \"ordinal\") whose path -view path shows, or whose children -view by-class groups")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *view != "" && !slices.Contains(hprofViews, *view) || *view == "path" && *object < 0 || *view != "" && fs.NArg() != 1 {
		fmt.Fprintf(std.err, "leakui hprof: -view must be one of %s for one dump (path with -object N)\n", strings.Join(hprofViews, ", "))
		return errUsage
	}
	if fs.NArg() < 1 || *suspectShare <= 0 || *suspectShare > 1 || *failShare < 0 || *failShare > 1 {
		fs.Usage()
		return errUsage
	}
	switch *progressMode {
	case "auto", "always", "never":
	default:
		fmt.Fprintf(std.err, "leakui hprof: -progress must be auto, always or never, not %q\n", visible(*progressMode))
		return errUsage
	}
	// The analysis holds a few large arrays of plain numbers, which the collector
	// scans at no cost: collecting more often keeps the peak near what is live.
	defer debug.SetGCPercent(debug.SetGCPercent(20))
	indexOpt := hprofIndexOptions{n: max(*n, 0), asJSON: *asJSON, maxObjects: *maxObjects, tempDir: *tempDir, progress: *progressMode, verbose: *verbose}
	if fs.NArg() >= 2 {
		return runHprofCompare(ctx, fs.Args(), indexOpt, std)
	}
	if *view != "" {
		return runHprofView(ctx, fs.Arg(0), *view, *object, indexOpt, std)
	}
	var size int64
	if st, err := os.Stat(fs.Arg(0)); err == nil {
		size = st.Size()
	}
	bar := newHprofProgress(std.err, *progressMode, size, *verbose)
	h, err := hprof.Open(fs.Arg(0), hprof.OpenOptions{Options: hprof.Options{MaxObjects: *maxObjects, OnProgress: bar.update, Context: ctx}, TempDir: *tempDir})
	if err != nil {
		return err
	}
	defer h.Close()
	rep, err := h.NewReport(hprof.ReportOptions{SuspectShare: *suspectShare, Top: max(*n, 0), Native: true}, nil)
	if err != nil {
		return err
	}
	bar.done()
	shown := rep.Capped(*n)
	if *asJSON {
		err = jvmWriteJSON(std.out, shown)
	} else {
		printHprof(std.out, fs.Arg(0), shown, *suspectShare)
	}
	if err != nil {
		return err
	}
	for _, s := range rep.Suspects {
		if *failShare > 0 && s.Share > *failShare {
			fmt.Fprintf(std.err, "leakui hprof: a suspect retains %.0f%% of the heap, more than -fail-share %g\n", 100*s.Share, *failShare)
			return exitError{hprofFailExit}
		}
	}
	return nil
}

// printHprof writes the report as text. Every name and text comes from the
// dump and is written with its line breaks and control characters escaped
// (visible), so that none can start a line of its own; a path shows its first
// and last steps and the number left out, so the output is bounded whatever
// the dump (hprof.PathEnds).
func printHprof(w io.Writer, path string, r *hprof.Report, suspectShare float64) {
	fmt.Fprintf(w, "Heap dump %s (%s, %d-byte identifiers, taken %s)\n", visible(path), visible(r.Version), r.IDSize, r.Time.Format("2006-01-02 15:04:05 UTC"))
	fmt.Fprintf(w, "%s objects, %s classes, %s GC roots; %s reachable, %s in %s objects not strongly reachable\n",
		analyze.FormatCount(r.Objects), analyze.FormatCount(int64(r.Classes)), analyze.FormatCount(int64(r.Roots)),
		analyze.FormatBytes(r.Reachable), analyze.FormatBytes(r.UnreachableBytes), analyze.FormatCount(r.UnreachableObjects))
	fmt.Fprintf(w, "Shallow sizes assume %d-byte object headers, %d-byte array headers and %d-byte references\n",
		r.Layout.Header, r.Layout.ArrayHeader, r.Layout.Ref)

	var native []hprof.NativeSuspect
	if r.Native != nil {
		native = r.Native.Suspects
	}
	fmt.Fprintf(w, "\nLeak suspects (retaining %.0f%% of the reachable heap or more): %d\n", 100*suspectShare, r.SuspectCount+len(native))
	for i, s := range native {
		fmt.Fprintf(w, "%d. %s\n", i+1, visible(strings.ReplaceAll(s.Sentence, "`", "")))
	}
	for i, s := range r.Suspects {
		fmt.Fprintf(w, "%d. %s\n", len(native)+i+1, visible(strings.ReplaceAll(s.Sentence, "`", "")))
		fmt.Fprintf(w, "   Shortest path from a GC root (%s steps):\n", analyze.FormatCount(int64(s.PathLength)))
		prev := -1
		for j, st := range s.Path {
			indent := strings.Repeat("  ", j)
			if gap := st.Index - prev - 1; gap > 0 {
				fmt.Fprintf(w, "   %s… %s more steps\n", indent, analyze.FormatCount(int64(gap)))
			}
			prev = st.Index
			via := st.Root
			if st.Index > 0 {
				via = "." + st.Field
			}
			fmt.Fprintf(w, "   %s%s → %s\n", indent, visible(via), hprofObject(st.Object))
		}
	}
	if more := r.SuspectCount - len(r.Suspects); more > 0 {
		fmt.Fprintf(w, "… %d more suspects\n", more)
	}

	if r.Native != nil {
		printHprofNative(w, r.Native)
	}
	fmt.Fprintf(w, "\nClass histogram (by retained size)\n%14s %12s %12s  %s\n", "instances", "shallow", "retained", "class")
	for _, c := range r.Histogram {
		fmt.Fprintf(w, "%14s %12s %12s  %s\n", analyze.FormatCount(c.Instances), analyze.FormatBytes(c.Shallow), analyze.FormatBytes(c.Retained), visible(c.Name))
	}
	hprofMore(w, r.HistogramCount, len(r.Histogram), "classes")
	fmt.Fprintf(w, "\nDominator tree (top level, by retained size)\n%12s %7s %12s  %s\n", "retained", "share", "shallow", "object")
	for _, o := range r.Dominators {
		fmt.Fprintf(w, "%12s %7s %12s  %s\n", analyze.FormatBytes(o.Retained), jvmShare(o.Retained, r.Reachable), analyze.FormatBytes(o.Shallow), hprofObject(o))
	}
	hprofMore(w, r.DominatorCount, len(r.Dominators), "top-level objects")
	fmt.Fprintf(w, "\nThreads (by retained size)\n%12s  %s\n", "retained", "thread")
	for _, t := range r.Threads {
		top := ""
		if len(t.Stack) > 0 {
			top = "  at " + visible(t.Stack[0].String())
		}
		fmt.Fprintf(w, "%12s  %q%s\n", analyze.FormatBytes(t.Object.Retained), t.Name, top)
	}
	hprofMore(w, r.ThreadCount, len(r.Threads), "threads")
	fmt.Fprintf(w, "\nPackages (by retained size)\n%12s %14s  %s\n", "retained", "instances", "package")
	for _, p := range r.Packages {
		name := p.Package
		if name == "" {
			name = "(no package: primitive arrays and the unnamed package)"
		}
		fmt.Fprintf(w, "%12s %14s  %s\n", analyze.FormatBytes(p.Retained), analyze.FormatCount(p.Instances), visible(name))
	}
	hprofMore(w, r.PackageCount, len(r.Packages), "packages")
	fmt.Fprintf(w, "\nDuplicate strings (by wasted size)\n%12s %8s  %s\n", "wasted", "copies", "text")
	for _, d := range r.DuplicateStrings {
		fmt.Fprintf(w, "%12s %8s  %q\n", analyze.FormatBytes(d.Wasted), analyze.FormatCount(d.Count), d.Text)
	}
	hprofMore(w, r.DuplicateCount, len(r.DuplicateStrings), "groups")
}

// printHprofNative writes the native memory section.
func printHprofNative(w io.Writer, nm *hprof.NativeMemory) {
	fmt.Fprintf(w, "\nNative memory held by the dump's objects (outside the Java heap): %s\n", analyze.FormatBytes(nm.Bytes))
	fmt.Fprintf(w, "%12s %12s  %-46s %s\n", "objects", "bytes", "holders", "strong / weak / finalizer-cleaner / unreachable")
	row := func(n hprof.NativeHolders, what string) {
		r := n.Reach
		fmt.Fprintf(w, "%12s %12s  %-46s %s / %s / %s / %s\n", analyze.FormatCount(n.Count), analyze.FormatBytes(n.Bytes), what,
			analyze.FormatCount(r.Strong.Count), analyze.FormatCount(r.Weak.Count), analyze.FormatCount(r.PendingCleanup.Count), analyze.FormatCount(r.Unreachable.Count))
	}
	row(nm.DirectBuffers, nm.DirectBuffers.Class+" (capacity)")
	row(nm.MappedBuffers, nm.MappedBuffers.Class+" (capacity)")
	row(nm.Inflaters, fmt.Sprintf("unclosed %s at %s", nm.Inflaters.Class, analyze.FormatBytes(nm.Inflaters.PerObject)))
	row(nm.Deflaters, fmt.Sprintf("unclosed %s at %s", nm.Deflaters.Class, analyze.FormatBytes(nm.Deflaters.PerObject)))
	t := nm.Threads
	fmt.Fprintf(w, "%12s %12s  thread stacks (reserved): %s with the size the program set, the others at the JVM's default of %s\n",
		analyze.FormatCount(t.Threads), analyze.FormatBytes(t.Bytes), analyze.FormatCount(t.Stated), analyze.FormatBytes(analyze.ThreadStackBytes))
	if nm.BufferViews > 0 || nm.InflatersEnded > 0 || nm.DeflatersEnded > 0 {
		fmt.Fprintf(w, "%12s  also %s buffer views (slices, duplicates: no memory of their own), %s Inflaters and %s Deflaters ended\n", "",
			analyze.FormatCount(nm.BufferViews), analyze.FormatCount(nm.InflatersEnded), analyze.FormatCount(nm.DeflatersEnded))
	}
	if nm.Inflaters.Reach.Unreachable.Count+nm.Inflaters.Reach.PendingCleanup.Count+nm.DirectBuffers.Reach.Unreachable.Count == 0 {
		fmt.Fprintf(w, "%12s  (a dump taken without -all has no unreachable objects: take `jcmd PID GC.heap_dump -all FILE` when native memory is the question)\n", "")
	}
}

// hprofMore writes how many rows of a list are left out, if any.
func hprofMore(w io.Writer, count, shown int, what string) {
	if count > shown {
		fmt.Fprintf(w, "%12s  … %s more %s\n", "", analyze.FormatCount(int64(count-shown)), what)
	}
}

// hprofObject names an object: "java.util.HashMap @0x7f00 (12.0 MB)" with its text.
func hprofObject(o hprof.Object) string {
	s := fmt.Sprintf("%s @%s (%s)", visible(o.Class), o.ID, analyze.FormatBytes(o.Retained))
	if o.Text != "" {
		s += fmt.Sprintf(" %q", o.Text)
	}
	return s
}

// residentSet is this process's resident set and its peak (VmRSS and VmHWM of
// /proc/self/status), 0 where the system has no such file.
func residentSet() (rss, peak int64) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok || name != "VmRSS" && name != "VmHWM" {
			continue
		}
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if name == "VmRSS" {
			rss = kb << 10
		} else {
			peak = kb << 10
		}
	}
	return rss, peak
}
