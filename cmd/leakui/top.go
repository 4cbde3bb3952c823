package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
)

// runTop implements `leakui top [-sample_index NAME] [-nodecount N] [-nodefraction F]
// [-edgefraction F] [-unit U] [-focus RE] [-ignore RE] [-hide RE] [-show RE]
// [-tagfocus T] [-tagignore T] [-json] PROFILE`. The text output is what
// `go tool pprof -top` prints with the same flags, byte for byte.
func runTop(ctx context.Context, args []string, std stdio) error {
	pf := newProfileFlags("top", "PROFILE", "sample type to show", std)
	if err := pf.parse(args, 1); err != nil {
		return err
	}
	f, err := pf.filter.compile(std.err, "top")
	if err != nil {
		return err
	}
	path := pf.fs.Arg(0)
	p, release, err := openFiltered(std.err, "top", path, *pf.maxDecompressed, f)
	if err != nil {
		return err
	}
	defer release()
	si, err := p.SampleIndex(*pf.sampleIndex)
	if err != nil {
		return err
	}
	if p.IsGoroutineLeakProfile() {
		fmt.Fprintf(std.err, "leakui top: %s is the goroutineleak profile: its goroutines are proven leaked by the Go runtime; `leakui goroutines %s` groups them by stack\n", path, path)
	}
	if *pf.asJSON {
		top, err := p.Top(si)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if *pf.trim == "pprof" {
			top = top.Trimmed(*pf.nodeFraction)
		}
		if n := pf.jsonRows(); n > 0 && len(top.Rows) > n {
			top.Rows = top.Rows[:n]
		}
		return writeJSON(std.out, top)
	}
	if err := p.WriteTop(std.out, pf.textOptions(si)); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
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
	trim            *string
	maxDecompressed *int64
	filter          filterFlags
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
		trim:            fs.String("trim", "", "with -json, pprof: leave out the rows go tool pprof -top leaves out (-nodefraction) and say how many (dropped, dropped_cutoff)"),
		maxDecompressed: fs.Int64("max-decompressed", analyze.DefaultMaxDecompressed, "refuse inputs larger than this many bytes after decompression"),
		filter:          addFilterFlags(fs),
	}
}

// parse parses args, which must name exactly files profiles.
func (pf profileFlags) parse(args []string, files int) error {
	if err := parseFlags(pf.fs, args); err != nil {
		return err
	}
	if *pf.trim != "" && *pf.trim != "pprof" {
		fmt.Fprintf(pf.fs.Output(), "leakui %s: -trim is pprof or nothing, not %q\n", strings.TrimPrefix(pf.fs.Name(), "leakui "), *pf.trim)
		return errUsage
	}
	if pf.fs.NArg() != files {
		pf.fs.Usage()
		return errUsage
	}
	return nil
}

// open parses args, which must name exactly files profiles, and opens them in
// order; close closes them.
func (pf profileFlags) open(args []string, files int) (ps []*pprof.Profile, close func(), err error) {
	if err := pf.parse(args, files); err != nil {
		return nil, nil, err
	}
	close = func() {
		for _, p := range ps {
			p.Close()
		}
	}
	for i := range files {
		p, err := openProfileFile(pf.fs.Arg(i), *pf.maxDecompressed)
		if err != nil {
			close()
			return nil, nil, err
		}
		ps = append(ps, p)
	}
	return ps, close, nil
}

// openProfileFile opens one profile file within the command's budget ("-" for
// stdin is not supported: profiles are files; a pipe such as <(zcat …) is).
// An error that is not the file's own names the file and, for a file of
// another kind, the command that reads it.
func openProfileFile(path string, limit int64) (*pprof.Profile, error) {
	p, err := pprof.Open(pprof.File(path), pprof.Options{Limit: limit, Budget: cliBudget()})
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, err
		}
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

// writeJSON writes v as one indented JSON document.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
