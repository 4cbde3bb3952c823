package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
)

// runTop implements `leakui top [-sample_index NAME] [-nodecount N] [-nodefraction F]
// [-edgefraction F] [-unit U] [-json] PROFILE`. The text output is what
// `go tool pprof -top` prints with the same flags, byte for byte.
//
// A profile.proto is streamed (pprof.OpenStreamed): its tables are read in a
// first pass and its samples decoded again from the file for the report,
// never all held, so that top's memory is the tables' and not the samples'.
// Other formats are loaded whole.
func runTop(ctx context.Context, args []string, std stdio) error {
	pf := newProfileFlags("top", "PROFILE", "sample type to show", std)
	if err := pf.parse(args, 1); err != nil {
		return err
	}
	path := pf.fs.Arg(0)
	var src topSource
	sp, err := openStreamedFile(path, *pf.maxDecompressed)
	switch {
	case err == nil:
		defer sp.Close()
		src = sp
	case errors.Is(err, pprof.ErrNotStreamable):
		p, err := loadProfileFile(path, *pf.maxDecompressed)
		if err != nil {
			return err
		}
		src = loadedTop{p}
	default:
		return err
	}
	si, err := src.SampleIndex(*pf.sampleIndex)
	if err != nil {
		return err
	}
	if src.IsGoroutineLeakProfile() {
		fmt.Fprintf(std.err, "leakui top: %s is the goroutineleak profile: its goroutines are proven leaked by the Go runtime; `leakui goroutines %s` groups them by stack\n", path, path)
	}
	if *pf.asJSON {
		top, err := src.Top(si)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if n := pf.jsonRows(); n > 0 && len(top.Rows) > n {
			top.Rows = top.Rows[:n]
		}
		return writeJSON(std.out, top)
	}
	if src.TextExact() {
		// pprof's report from the profile already decoded: no second parse.
		if err := src.WriteTopText(std.out, pf.textOptions(si)); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	}
	ref, err := loadReferenceFile(path, *pf.maxDecompressed)
	if err != nil {
		return err
	}
	return pprof.WriteTopText(std.out, ref, pf.textOptions(si))
}

// topSource is what top reads of a profile: streamed (*pprof.StreamedProfile)
// or loaded whole (loadedTop).
type topSource interface {
	SampleIndex(name string) (int, error)
	IsGoroutineLeakProfile() bool
	TextExact() bool
	Top(sampleIndex int) (pprof.TopResult, error)
	WriteTopText(w io.Writer, o pprof.TextOptions) error
}

// loadedTop is a profile loaded whole, as a topSource.
type loadedTop struct{ *pprof.Profile }

func (l loadedTop) Top(si int) (pprof.TopResult, error) { return l.Profile.Top(si), nil }

func (l loadedTop) WriteTopText(w io.Writer, o pprof.TextOptions) error {
	return pprof.WriteProfileTopText(w, l.Profile, o)
}

// openStreamedFile reads the tables of a profile.proto file for streaming; it
// answers pprof.ErrNotStreamable, unwrapped, for a file to load whole: not a
// profile.proto, or not a regular file, which could not be read twice.
func openStreamedFile(path string, limit int64) (*pprof.StreamedProfile, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, pprof.ErrNotStreamable // a pipe (<(zcat …)) is read once
	}
	open := func() (io.ReadCloser, error) { return os.Open(path) }
	sp, err := pprof.OpenStreamed(open, limit, cliBudget())
	if err != nil && !errors.Is(err, pprof.ErrNotStreamable) {
		return nil, fmt.Errorf("%s: %w%s", path, err, notAProfileHint(path, err))
	}
	return sp, err
}

// profileFlags are the flags top and diff share, named as go tool pprof names them.
type profileFlags struct {
	fs              *flag.FlagSet
	sampleIndex     *string
	nodeCount       *nodeCountFlag
	nodeFraction    *float64
	edgeFraction    *float64
	unit            *string
	asJSON          *bool
	maxDecompressed *int64
}

// nodeCountFlag is -nodecount (and its alias -n): unset, the text output shows
// every row that survives -nodefraction, as pprof's -top does, and -json its first 20.
type nodeCountFlag struct {
	n   int
	set bool
}

func (f *nodeCountFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return strconv.Itoa(f.n)
}

func (f *nodeCountFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return err
	}
	f.n, f.set = n, true
	return nil
}

// jsonRowsDefault is how many rows -json prints without -nodecount (as before the
// text output followed pprof).
const jsonRowsDefault = 20

// jsonRows is the number of rows -json prints (0 for all).
func (pf profileFlags) jsonRows() int {
	if !pf.nodeCount.set {
		return jsonRowsDefault
	}
	return pf.nodeCount.n
}

// textOptions are pprof's report options from the flags.
func (pf profileFlags) textOptions(sampleIndex int) pprof.TextOptions {
	return pprof.TextOptions{
		SampleIndex:  sampleIndex,
		NodeCount:    pf.nodeCount.n,
		NodeFraction: *pf.nodeFraction,
		EdgeFraction: *pf.edgeFraction,
		Unit:         *pf.unit,
	}
}

// newProfileFlags registers the shared flags of the command called name, whose
// arguments argsUsage names; sampleIndexUsage begins the -sample_index help.
func newProfileFlags(name, argsUsage, sampleIndexUsage string, std stdio) profileFlags {
	fs := newFlagSet(name, argsUsage, std.err)
	nc := new(nodeCountFlag)
	fs.Var(nc, "nodecount", "show at most `N` rows, as pprof's -nodecount (default: every row that survives -nodefraction; with -json the first 20; 0 for all)")
	fs.Var(nc, "n", "alias of -nodecount `N`")
	return profileFlags{
		fs:              fs,
		sampleIndex:     fs.String("sample_index", "", sampleIndexUsage+" (name or index; default as pprof chooses)"),
		nodeCount:       nc,
		nodeFraction:    fs.Float64("nodefraction", pprof.DefaultNodeFraction, "hide rows whose cum is below this fraction of the total, as pprof's -nodefraction (text output)"),
		edgeFraction:    fs.Float64("edgefraction", pprof.DefaultEdgeFraction, "ignore calls below this fraction of the total, as pprof's -edgefraction (decides the (inline) marks)"),
		unit:            fs.String("unit", pprof.DefaultUnit, "unit of the text output, as pprof's -unit (B, kB, MB, ns, ms, s, …; minimum chooses)"),
		asJSON:          fs.Bool("json", false, "print one JSON document of exact values"),
		maxDecompressed: fs.Int64("max-decompressed", analyze.DefaultMaxDecompressed, "refuse inputs larger than this many bytes after decompression"),
	}
}

// parse parses args, which must name exactly files profiles.
func (pf profileFlags) parse(args []string, files int) error {
	if err := parseFlags(pf.fs, args); err != nil {
		return err
	}
	if pf.fs.NArg() != files {
		pf.fs.Usage()
		return errUsage
	}
	return nil
}

// load parses args, which must name exactly files profiles, and loads them in order.
func (pf profileFlags) load(args []string, files int) ([]*pprof.Profile, error) {
	if err := pf.parse(args, files); err != nil {
		return nil, err
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
	p, err := pprof.LoadWithin(f, limit, cliBudget())
	if err != nil {
		return nil, fmt.Errorf("%s: %w%s", path, err, notAProfileHint(path, err))
	}
	return p, nil
}

// cliBudget is the memory budget of a command's profile: half of the machine's
// (or cgroup's) memory, at most cliMaxBudget, so that a small file that decodes
// to more stops with a clear error instead of taking the machine's memory.
func cliBudget() *analyze.Budget {
	limit := int64(cliMaxBudget)
	if mem := machineMemory(); mem > 0 {
		limit = min(limit, mem/2)
	}
	return analyze.NewBudget(limit).Child(0)
}

// cliMaxBudget bounds cliBudget: four times the largest decompressed input
// (-max-decompressed, 1 GiB) is what a profile of many samples needs.
const cliMaxBudget = 4 << 30

// loadReferenceFile reads a profile file as go tool pprof reads it.
func loadReferenceFile(path string, limit int64) (*pprof.Reference, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ref, err := pprof.LoadReference(f, limit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ref, nil
}

// writeJSON writes v as one indented JSON document.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
