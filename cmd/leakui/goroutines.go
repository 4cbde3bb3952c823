package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/goroutines"
)

// goroutineIDsShown is how many goroutine ids the text output lists per group.
const goroutineIDsShown = 10

// runGoroutines is `leakui goroutines [-json] [-n N] [-split creator]
// DUMP_OR_PROFILE [BASE]`.
func runGoroutines(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("goroutines", "DUMP_OR_PROFILE [BASE]", std.err)
	asJSON := fs.Bool("json", false, "write one JSON document: {\"total\",\"groups\":[{\"count\",\"state\",\"stack\",…}]}")
	limit := fs.Int("n", 0, "show only the first `N` groups (0: all)")
	split := fs.String("split", "", "creator: also split groups by the goroutine that created them (\"in goroutine N\"), as panicparse does; one dump only")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 1 || fs.NArg() > 2 || *limit < 0 || (*split != "" && (*split != goroutines.SplitCreator || fs.NArg() == 2)) {
		fs.Usage()
		return errUsage
	}
	target, err := readGoroutineDump(fs.Arg(0), std.in)
	if err != nil {
		return err
	}
	var base *goroutines.Dump
	if fs.NArg() == 2 {
		if base, err = readGoroutineDump(fs.Arg(1), std.in); err != nil {
			return err
		}
	}
	report := goroutines.NewReport(target, base)
	if *split != "" {
		report = goroutines.NewReportByCreator(target)
	}
	groups, gone := len(report.Groups), 0
	for _, g := range report.Groups {
		if g.Change != nil && g.Change.Gone {
			gone++
		}
	}
	if *limit > 0 && len(report.Groups) > *limit {
		report.Groups = report.Groups[:*limit]
	}
	if *asJSON {
		return json.NewEncoder(std.out).Encode(report)
	}
	w := bufio.NewWriterSize(std.out, 64<<10)
	writeGoroutineReport(w, report, groups, gone)
	return w.Flush()
}

// readGoroutineDump parses the dump in the named file, or standard input for "-".
func readGoroutineDump(name string, stdin io.Reader) (*goroutines.Dump, error) {
	if name == "-" {
		d, err := goroutines.Parse(stdin, 0)
		if err != nil {
			return nil, fmt.Errorf("standard input: %w", err)
		}
		return d, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := goroutines.Parse(f, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return d, nil
}

// writeGoroutineReport prints the report for people, in the manner of panicparse:
// the crash, a summary line, then each group with its stack. groups counts all
// groups before -n, gone those only the base has.
func writeGoroutineReport(w io.Writer, r *goroutines.Report, groups, gone int) {
	fmt.Fprintf(w, "%s\n\n", visible(r.Headline))
	if p := r.Panic; p != nil {
		switch p.Kind {
		case goroutines.FormatPanic, goroutines.FormatFatal:
			fmt.Fprintf(w, "%s: %s\n", p.Kind, p.Message)
		default:
			fmt.Fprintln(w, p.Message)
		}
		if p.Signal != "" {
			fmt.Fprintln(w, p.Signal)
		}
		if p.Goroutine >= 0 {
			fmt.Fprintf(w, "goroutine %d %s; its group comes first.\n", p.Goroutine, goroutineCrashVerb(p.Kind))
		}
		fmt.Fprintln(w)
	}
	if r.ProvenLeaked {
		fmt.Fprintf(w, "proven leaked by the Go runtime (goroutineleak profile): every goroutine below can never run again\n")
	}
	fmt.Fprintf(w, "%s in %s (%s)", analyze.Plural(int64(r.Total), "goroutine"), analyze.Plural(int64(groups-gone), "group"), r.Format)
	if r.DeclaredTotal != nil && *r.DeclaredTotal != r.Total {
		fmt.Fprintf(w, ", the dump says %d", *r.DeclaredTotal)
	}
	if r.Truncated {
		fmt.Fprint(w, ", truncated")
	}
	if b := r.Base; b != nil {
		fmt.Fprintf(w, "; base: %s (%s), change %+d", analyze.Plural(int64(b.Total), "goroutine"), b.Format, r.Total-b.Total)
		if gone > 0 {
			fmt.Fprintf(w, ", %s gone", analyze.Plural(int64(gone), "group"))
		}
	}
	fmt.Fprintln(w)
	if r.SplitBy == goroutines.SplitCreator {
		fmt.Fprintln(w, "groups split by the goroutine that created them")
	}
	switch {
	case !r.ProvenLeaked && r.Leaked > 0:
		fmt.Fprintf(w, "%s proven leaked by the Go runtime (state \"…%s\")\n", analyze.Plural(int64(r.Leaked), "goroutine"), goroutines.LeakedStateSuffix)
	case r.LeakProofHint != "":
		fmt.Fprintln(w, r.LeakProofHint)
	}
	if len(r.Groups) < groups {
		fmt.Fprintf(w, "showing the first %d groups\n", len(r.Groups))
	}
	for i := range r.Groups {
		fmt.Fprintln(w)
		writeGoroutineGroup(w, &r.Groups[i])
	}
}

func goroutineCrashVerb(kind string) string {
	if kind == goroutines.FormatPanic {
		return "panicked"
	}
	return "threw"
}

// writeGoroutineGroup prints one group: a title line, then its frames.
func writeGoroutineGroup(w io.Writer, g *goroutines.Group) {
	var title strings.Builder
	title.WriteString(analyze.Plural(int64(g.Count), "goroutine"))
	if c := g.Change; c != nil {
		switch {
		case c.New:
			title.WriteString(" (new)")
		case c.Gone:
			fmt.Fprintf(&title, " (gone, %d in base)", c.Base)
		case c.Delta != 0:
			fmt.Fprintf(&title, " (%+d from %d)", c.Delta, c.Base)
		default:
			title.WriteString(" (unchanged)")
		}
	}
	var status []string
	if g.State != "" {
		status = append(status, g.State)
	}
	if wait := g.Wait(); wait != "" {
		status = append(status, wait)
	}
	if g.Locked {
		status = append(status, "locked to thread")
	}
	if len(status) > 0 {
		fmt.Fprintf(&title, " [%s]", visible(strings.Join(status, ", ")))
	}
	if len(g.Labels) > 0 {
		labels, _ := json.Marshal(g.Labels)
		fmt.Fprintf(&title, " labels %s", labels)
	}
	if g.Panicking {
		title.WriteString(" PANICKING")
	}
	if len(g.IDs) > 0 {
		title.WriteString(" ids")
		for _, id := range g.IDs[:min(len(g.IDs), goroutineIDsShown)] {
			title.WriteByte(' ')
			title.WriteString(strconv.FormatInt(id, 10))
		}
		if more := len(g.IDs) - goroutineIDsShown; more > 0 {
			fmt.Fprintf(&title, " and %d more", more)
		}
	}
	fmt.Fprintln(w, title.String())
	// Function names and files come from the dump (a goroutine profile's
	// strings may hold line feeds): each is written on its line, escaped.
	width := 0
	for _, f := range g.Stack.Frames {
		width = max(width, min(len(visible(f.Func)), 80))
	}
	for _, f := range g.Stack.Frames {
		fmt.Fprintf(w, "    %-*s  %s\n", width, visible(f.Func), visible(f.Location()))
	}
	if cb := g.Stack.CreatedBy; cb != nil {
		by := "created by " + visible(cb.Func)
		if len(g.CreatorIDs) == 1 {
			by += " in goroutine " + strconv.FormatInt(g.CreatorIDs[0], 10)
		} else if len(g.CreatorIDs) > 1 {
			by += fmt.Sprintf(" in %d goroutines", len(g.CreatorIDs))
		}
		fmt.Fprintf(w, "    %s  %s\n", by, visible(cb.Location()))
	}
}
