package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/capture"
	"github.com/leakui/leakui/analyze/jvm"
)

// nmtJSON is `leakui nmt -json`: the report (amounts in bytes, whatever scale it was
// printed in), the comparison with BASE or with the baseline of a summary.diff, and
// the native leak signature lifted to the top (null when absent). With the
// process's resident set beside the summaries (capture bundles, or -status
// files), native is the untracked native memory report, and its two key figures
// are lifted to the top.
type nmtJSON struct {
	*jvm.NMT
	Headline                  string             `json:"headline"`
	Comparison                *jvm.NMTDiff       `json:"comparison"`
	NativeLeak                *jvm.NativeLeak    `json:"native_leak"`
	Native                    *jvm.NativeReport  `json:"native,omitempty"`
	UntrackedNativeDeltaBytes *int64             `json:"untracked_native_delta_bytes,omitempty"`
	InflatersAlive            *int64             `json:"inflaters_alive,omitempty"`
	Verdict                   *jvm.NativeVerdict `json:"verdict,omitempty"`
}

// nmtSideFlags are the files taken with one summary: /proc/PID/status,
// GC.heap_info and GC.class_histogram -all.
type nmtSideFlags struct{ status, heapInfo, histogram *string }

func (f nmtSideFlags) any() bool { return *f.status != "" || *f.heapInfo != "" || *f.histogram != "" }

// runNMT implements `leakui nmt [flags] SUMMARY [BASE]`. SUMMARY and BASE may be
// capture bundles (leakui capture jvm). It exits with status 3 when native
// memory outside the Java heap grows while the heap does not, or when native
// memory the JVM does not track grows.
func runNMT(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("nmt", "SUMMARY [BASE]", std.err)
	pick := fs.Int("snapshot", -1, "which report of a file holding several: 1 is the first, -1 the last")
	basePick := fs.Int("base-snapshot", -1, "which report of BASE, counted the same way (BASE may be SUMMARY itself)")
	asJSON := fs.Bool("json", false, "write one JSON document on stdout")
	target := nmtSideFlags{fs.String("status", "", "/proc/PID/status taken with SUMMARY: with BASE's, the untracked native memory"),
		fs.String("heap-info", "", "jcmd PID GC.heap_info taken with SUMMARY (the Java heap's use)"),
		fs.String("histogram", "", "jcmd PID GC.class_histogram -all taken with SUMMARY (java.util.zip.Inflater alive)")}
	base := nmtSideFlags{fs.String("base-status", "", "/proc/PID/status taken with BASE"),
		fs.String("base-heap-info", "", "jcmd PID GC.heap_info taken with BASE"),
		fs.String("base-histogram", "", "jcmd PID GC.class_histogram -all taken with BASE")}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 1 || fs.NArg() > 2 || (fs.NArg() == 1 && base.any()) {
		fs.Usage()
		return errUsage
	}
	tn, tsnap, native, err := nmtSide(fs.Arg(0), *pick, target, std)
	if err != nil {
		return err
	}
	out := &nmtJSON{NMT: tn}
	compared := "its baseline"
	snaps := []jvm.NativeSnapshot{tsnap}
	if fs.NArg() == 2 {
		bn, bsnap, bnative, err := nmtSide(fs.Arg(1), *basePick, base, std)
		if err != nil {
			return err
		}
		native = native || bnative
		snaps = []jvm.NativeSnapshot{bsnap, tsnap}
		if bn != nil && tn != nil {
			out.Comparison, compared = jvm.DiffNMT(bn, tn), fs.Arg(1)
		}
	} else if tn != nil {
		out.Comparison = tn.BaselineDiff()
	}
	if tn != nil {
		out.Headline = tn.Headline()
	}
	if out.Comparison != nil {
		out.NativeLeak = out.Comparison.NativeLeak
	}
	if native {
		out.Native = jvm.AnalyzeNative(snaps)
		out.Verdict = &out.Native.Verdict
		if out.Native.Complete {
			out.UntrackedNativeDeltaBytes = &out.Native.UntrackedNativeDeltaBytes
		}
		if tsnap.Histogram != nil {
			out.InflatersAlive = &out.Native.InflatersAlive
		}
	}
	if *asJSON {
		err = jvmWriteJSON(std.out, out)
	} else {
		if out.Comparison != nil {
			printWarnings(std.out, out.Comparison.Warnings)
		}
		printNMT(std.out, fs.Arg(0), out, compared)
	}
	if err == nil && (out.NativeLeak != nil || (out.Native != nil && out.Native.Verdict.Leak)) {
		return exitError{3}
	}
	return err
}

// nmtSide reads one side of the comparison: a capture bundle, or a native
// memory report with the files given beside it. native tells that the side
// carries more than NMT (a bundle, or any of the files).
func nmtSide(path string, pick int, extra nmtSideFlags, std stdio) (*jvm.NMT, jvm.NativeSnapshot, bool, error) {
	snap := jvm.NativeSnapshot{RSS: -1, Heap: -1}
	if c, ok, err := readBundle(path); err != nil || ok {
		if err != nil {
			return nil, snap, false, err
		}
		if c.JVM == nil {
			return nil, snap, false, fmt.Errorf("%s: a capture of a Go process, not of a JVM", path)
		}
		rep, err := capture.Analyze([]*capture.Capture{c})
		if err != nil {
			return nil, snap, false, err
		}
		for _, p := range rep.Problems {
			fmt.Fprintf(std.err, "leakui nmt: %s: %s\n", path, p)
		}
		snap = c.JVM.Snapshot(&c.Manifest)
		return c.JVM.NMT, snap, true, nil
	}
	n, err := jvmNMT(path, pick, std)
	if err != nil {
		return nil, snap, false, err
	}
	snap.NMT, snap.Time = n, n.Time
	if *extra.status != "" {
		b, err := readAllDecompressed(*extra.status, std)
		if err != nil {
			return nil, snap, false, err
		}
		st, err := capture.ParseStatus(b)
		if err != nil {
			return nil, snap, false, fmt.Errorf("%s: %w", *extra.status, err)
		}
		snap.RSS = st.VmRSS
	}
	if *extra.histogram != "" {
		h, err := jvmHistogram(*extra.histogram, -1, std)
		if err != nil {
			return nil, snap, false, err
		}
		snap.Histogram, snap.Heap, snap.HeapSource = h, h.TotalBytes, jvm.HeapFromHistogram
	}
	if *extra.heapInfo != "" {
		var hi *jvm.HeapInfo
		if err := jvmRead(*extra.heapInfo, std, func(r io.Reader) (err error) { hi, err = jvm.ParseHeapInfo(r); return }); err != nil {
			return nil, snap, false, err
		}
		snap.Heap, snap.HeapSource = hi.Used, jvm.HeapFromUsed
	}
	return n, snap, extra.any(), nil
}

// readBundle reads path as a capture bundle when it is one (ok false, no error,
// when it is not).
func readBundle(path string) (*capture.Capture, bool, error) {
	if path == "-" {
		return nil, false, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	rc, _, err := analyze.Decompress(f, 0)
	if err != nil {
		return nil, false, nil // the NMT reader says what is wrong
	}
	br := bufio.NewReaderSize(rc, analyze.SniffSize)
	head, _ := br.Peek(analyze.SniffSize)
	if !capture.IsBundle(head) {
		rc.Close()
		return nil, false, nil
	}
	defer rc.Close()
	b, err := capture.Read(br, capture.Limits{}, nil)
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", path, err)
	}
	c, err := capture.Parse(b, 0, nil)
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", path, err)
	}
	return c, true, nil
}

// readAllDecompressed reads a small file whole, gzip and zstd removed.
func readAllDecompressed(path string, std stdio) ([]byte, error) {
	var b []byte
	err := jvmRead(path, std, func(r io.Reader) (err error) {
		b, err = io.ReadAll(io.LimitReader(r, 16<<20))
		return err
	})
	return b, err
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
	defer printNative(w, out.Native)
	n := out.NMT
	if n == nil {
		fmt.Fprintf(w, "JVM capture %s: no native memory report (Native Memory Tracking was off)\n", path)
		return
	}
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

// printNative prints the untracked native memory report.
func printNative(w io.Writer, r *jvm.NativeReport) {
	if r == nil {
		return
	}
	fmt.Fprintf(w, "\nNative memory the JVM does not track (%d snapshots):\n", r.Snapshots)
	if r.Snapshots > 1 {
		fmt.Fprintf(w, "  RSS %s → %s (%s)\n", analyze.FormatBytes(r.BaseRSS), analyze.FormatBytes(r.RSS), analyze.FormatSignedValue(r.RSSDelta, "bytes"))
		if r.NMT != nil {
			fmt.Fprintf(w, "  NMT committed outside the heap %s\n", analyze.FormatSignedValue(r.TrackedOutsideHeapDelta, "bytes"))
		}
		if r.HeapSource != "" {
			fmt.Fprintf(w, "  Java heap %s (%s)\n", analyze.FormatSignedValue(r.HeapDelta, "bytes"), r.HeapSource)
		}
		if r.Complete {
			fmt.Fprintf(w, "  untracked native memory %s (untracked_native_delta_bytes %d)\n", analyze.FormatSignedValue(r.UntrackedNativeDeltaBytes, "bytes"), r.UntrackedNativeDeltaBytes)
		}
	}
	fmt.Fprintf(w, "  java.util.zip.Inflater alive %s, Deflater %s, java.nio.DirectByteBuffer %s\n",
		analyze.FormatCount(r.InflatersAlive), analyze.FormatCount(r.DeflatersAlive), analyze.FormatCount(r.DirectBuffers))
	label := "verdict"
	if r.Verdict.Leak {
		label = "NATIVE LEAK"
	}
	fmt.Fprintf(w, "\n%s: %s\n", label, r.Verdict.Sentence)
}

func (o *nmtJSON) heapCommitted() int64 {
	c, _ := o.Category(jvm.HeapCategory)
	return c.Committed
}
