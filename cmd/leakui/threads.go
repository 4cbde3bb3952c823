package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/jvm"
)

// threadsJSON is `leakui threads -json`: the grouped dump, whose total and groups
// [{count, state, stack}] are the contract, with the groups cut to -n, and the diff
// against BASE when one is given.
type threadsJSON struct {
	*jvm.ThreadGroups
	// Dumps is how many dumps the file holds; Dump is the one shown, from 1.
	Dumps    int             `json:"dumps"`
	Dump     int             `json:"dump"`
	Headline string          `json:"headline"`
	Diff     *jvm.ThreadDiff `json:"diff,omitempty"`
}

// runThreads implements `leakui threads [flags] DUMP [BASE]`.
func runThreads(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("threads", "DUMP [BASE]", std.err)
	n := fs.Int("n", 20, "show the `N` largest groups (0: all)")
	depth := fs.Int("depth", 12, "print at most `N` frames per group (0: all)")
	pick := fs.Int("snapshot", -1, "which dump of a file holding several: 1 is the first, -1 the last")
	basePick := fs.Int("base-snapshot", -1, "which dump of BASE, counted the same way (BASE may be DUMP itself)")
	asJSON := fs.Bool("json", false, "write one JSON document on stdout")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		fs.Usage()
		return errUsage
	}
	target, count, index, err := jvmThreadGroups(fs.Arg(0), *pick, std)
	if err != nil {
		return err
	}
	out := &threadsJSON{Dumps: count, Dump: index, Headline: target.Headline()}
	if fs.NArg() == 2 {
		base, _, _, err := jvmThreadGroups(fs.Arg(1), *basePick, std)
		if err != nil {
			return err
		}
		d := jvm.DiffThreads(base, target)
		d.New, d.Grown, d.Shrunk, d.Names = jvmFirst(d.New, *n), jvmFirst(d.Grown, *n), jvmFirst(d.Shrunk, *n), jvmFirst(d.Names, *n)
		out.Diff = d
	}
	shown := *target
	shown.Groups = jvmFirst(target.Groups, *n)
	out.ThreadGroups = &shown
	if *asJSON {
		return jvmWriteJSON(std.out, out)
	}
	if out.Diff != nil {
		printWarnings(std.out, out.Diff.Warnings)
	}
	printThreads(std.out, fs.Arg(0), out, len(target.Groups), *depth)
	if out.Diff != nil {
		printThreadDiff(std.out, fs.Arg(1), fs.Arg(0), out.Diff)
	}
	return nil
}

// jvmThreadGroups reads the chosen dump of a file and groups it; it also returns how
// many dumps the file holds and the number of the one chosen.
func jvmThreadGroups(path string, pick int, std stdio) (*jvm.ThreadGroups, int, int, error) {
	var f *jvm.ThreadFile
	err := jvmRead(path, std, func(r io.Reader) (err error) {
		f, err = jvm.ParseThreadDumps(r)
		return err
	})
	if err != nil {
		return nil, 0, 0, err
	}
	for _, w := range f.Warnings {
		fmt.Fprintf(std.err, "leakui: %s: warning: %s\n", path, w)
	}
	d, err := jvmPick(f.Dumps, pick, path, "thread dumps", std)
	if err != nil {
		return nil, 0, 0, err
	}
	index := pick
	if index < 0 {
		index += len(f.Dumps) + 1
	}
	return jvm.GroupThreads(d), len(f.Dumps), index, nil
}

func printThreads(w io.Writer, path string, out *threadsJSON, groups, depth int) {
	g := out.ThreadGroups
	fmt.Fprintf(w, "JVM thread dump %d of %d in %s", out.Dump, out.Dumps, path)
	if !g.Time.IsZero() {
		fmt.Fprintf(w, ", taken %s", g.Time.Format("2006-01-02 15:04:05"))
	}
	fmt.Fprintln(w)
	if g.Header != "" {
		fmt.Fprintln(w, g.Header)
	}
	fmt.Fprintf(w, "%s threads (%s daemon) in %s groups\nStates:", analyze.FormatCount(int64(g.Total)), analyze.FormatCount(int64(g.Daemon)), analyze.FormatCount(int64(groups)))
	for i, s := range g.States {
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(w, "%s %s %d", sep, s.State, s.Count)
	}
	fmt.Fprintln(w)
	for i, dl := range g.Deadlocks {
		fmt.Fprintf(w, "\nDEADLOCK %d reported by the JVM:\n", i+1)
		for _, t := range dl.Threads {
			fmt.Fprintf(w, "  %q %s,\n    held by %q\n", t.Name, t.Waiting, t.HeldBy)
		}
	}
	for _, grp := range g.Groups {
		fmt.Fprintln(w)
		printThreadGroup(w, grp, "", depth)
	}
	if rest := groups - len(g.Groups); rest > 0 {
		fmt.Fprintf(w, "\n…and %d more groups (-n 0 shows all)\n", rest)
	}
}

// printThreadGroup prints one group: size, state, daemon, names, locks, stack.
func printThreadGroup(w io.Writer, grp jvm.ThreadGroup, change string, depth int) {
	daemon := "non-daemon"
	switch {
	case grp.Daemon == grp.Count:
		daemon = "daemon"
	case grp.Daemon > 0:
		daemon = fmt.Sprintf("%d daemon", grp.Daemon)
	}
	dead := ""
	if grp.Deadlocked {
		dead = "DEADLOCKED "
	}
	fmt.Fprintf(w, "%s%d threads%s  %s  %s\n", dead, grp.Count, change, grp.State, daemon)
	names := make([]string, len(grp.Names))
	for i, p := range grp.Names {
		names[i] = fmt.Sprintf("%s (%d)", p.Pattern, p.Count)
	}
	fmt.Fprintf(w, "  names: %s\n", strings.Join(names, ", "))
	for _, l := range grp.Locks {
		fmt.Fprintf(w, "  %s %s", l.Kind, l.Class)
		if l.Objects > 1 {
			fmt.Fprintf(w, " (%d objects)", l.Objects)
		}
		if len(l.HeldBy) > 0 {
			fmt.Fprintf(w, " held by %s", strings.Join(l.HeldBy, ", "))
		}
		fmt.Fprintln(w)
	}
	for i, f := range grp.Stack {
		if depth > 0 && i == depth {
			more := len(grp.Stack) - depth
			fmt.Fprintf(w, "      … %d more frame%s\n", more, map[bool]string{true: "s"}[more > 1])
			break
		}
		fmt.Fprintf(w, "      at %s\n", f)
	}
}

func printThreadDiff(w io.Writer, basePath, targetPath string, d *jvm.ThreadDiff) {
	fmt.Fprintf(w, "\nDiff %s → %s: %s → %s threads (%s)\n", basePath, targetPath, analyze.FormatCount(int64(d.BaseTotal)),
		analyze.FormatCount(int64(d.TargetTotal)), analyze.FormatSignedValue(int64(d.TargetTotal-d.BaseTotal), "count"))
	fmt.Fprintln(w, "\nThread names by change:")
	if len(d.Names) == 0 {
		fmt.Fprintln(w, "  (no change)")
	}
	for _, c := range d.Names {
		fmt.Fprintf(w, "%8s  %6d → %-6d  %s\n", analyze.FormatSignedValue(int64(c.Delta), "count"), c.Base, c.Target, c.Pattern)
	}
	for _, part := range []struct {
		title string
		rows  []jvm.ThreadGroupChange
	}{{"New groups", d.New}, {"Grown groups", d.Grown}, {"Shrunk or gone groups", d.Shrunk}} {
		fmt.Fprintf(w, "\n%s:\n", part.title)
		if len(part.rows) == 0 {
			fmt.Fprintln(w, "  (none)")
		}
		for _, c := range part.rows {
			printThreadGroup(w, c.ThreadGroup, fmt.Sprintf(" (%s, was %d)", analyze.FormatSignedValue(int64(c.Delta), "count"), c.BaseCount), 3)
		}
	}
}
