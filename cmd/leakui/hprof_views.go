package main

import (
	"context"
	"fmt"
	"io"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/hprof"
)

// hprofViews are the names `leakui hprof -view` takes: the views of a dump's
// index that Eclipse MAT's users reach for after the dominator tree.
var hprofViews = []string{"by-class", "by-loader", "unreachable", "duplicate-classes", "path"}

// runHprofView analyzes the dump at path into its index, as the web stores it,
// and writes one view of it, paged from the index: at most opt.n rows (all
// for 0), the steps of a path at both ends.
func runHprofView(ctx context.Context, path, view string, object int64, opt hprofIndexOptions, std stdio) error {
	x, f, err := hprofIndex(ctx, path, opt, std)
	if err != nil {
		return err
	}
	defer f.Close()
	limit := opt.n
	if limit <= 0 {
		limit = 1 << 30
	}
	var out any
	w := std.out
	switch view {
	case "by-class":
		if object >= 0 {
			if object >= int64(x.Objects()) {
				fmt.Fprintf(std.err, "leakui hprof: -object %d: the dump has objects 0 to %d\n", object, x.Objects()-1)
				return errUsage
			}
			groups, total, err := x.ChildGroups(uint32(object), 0, limit)
			if err != nil {
				return err
			}
			out = map[string]any{"view": view, "object": object, "groups": groups, "total": total}
			if !opt.asJSON {
				fmt.Fprintf(w, "What object %d dominates, grouped by class (%s classes)\n", object, analyze.FormatCount(int64(total)))
				plain := make([]hprof.ClassGroup, len(groups))
				for i, g := range groups {
					plain[i] = g.ClassGroup
				}
				printClassGroups(w, plain)
				hprofMore(w, total, len(groups), "classes")
			}
			break
		}
		groups, total, err := x.DominatorsByClass(0, limit)
		if err != nil {
			return err
		}
		out = map[string]any{"view": view, "groups": groups, "total": total}
		if !opt.asJSON {
			fmt.Fprintf(w, "Dominator tree, top level grouped by class (%s classes)\n", analyze.FormatCount(int64(total)))
			printClassGroups(w, groups)
			hprofMore(w, total, len(groups), "classes")
		}
	case "by-loader":
		loaders, total, err := x.DominatorsByLoader(0, limit)
		if err != nil {
			return err
		}
		out = map[string]any{"view": view, "loaders": loaders, "total": total}
		if !opt.asJSON {
			fmt.Fprintf(w, "Dominator tree, top level grouped by class loader (%s loaders)\n%14s %12s %12s %8s  %s\n",
				analyze.FormatCount(int64(total)), "objects", "shallow", "retained", "classes", "loader")
			for _, l := range loaders {
				fmt.Fprintf(w, "%14s %12s %12s %8s  %s\n", analyze.FormatCount(l.Objects), analyze.FormatBytes(l.Shallow),
					analyze.FormatBytes(l.Retained), analyze.FormatCount(int64(l.Classes)), hprofObjectName(l.Loader))
			}
			hprofMore(w, total, len(loaders), "loaders")
		}
	case "unreachable":
		rows, total, all, err := x.Unreachable(0, limit)
		if err != nil {
			return err
		}
		out = map[string]any{"view": view, "classes": rows, "total": total, "all": all}
		if !opt.asJSON {
			fmt.Fprintf(w, "Objects not strongly reachable, by class: %s objects, %s (%s only softly or weakly reachable, %s only from finalizer/cleaner queues, %s unreachable)\n",
				analyze.FormatCount(all.Objects), analyze.FormatBytes(all.Shallow), analyze.FormatCount(all.Weak.Count),
				analyze.FormatCount(all.PendingCleanup.Count), analyze.FormatCount(all.Unreachable.Count))
			fmt.Fprintf(w, "%14s %12s %12s %12s %12s  %s\n", "objects", "shallow", "weak", "cleanup", "unreachable", "class")
			for _, r := range rows {
				fmt.Fprintf(w, "%14s %12s %12s %12s %12s  %s\n", analyze.FormatCount(r.Objects), analyze.FormatBytes(r.Shallow),
					analyze.FormatCount(r.Weak.Count), analyze.FormatCount(r.PendingCleanup.Count), analyze.FormatCount(r.Unreachable.Count), visible(r.Class))
			}
			hprofMore(w, total, len(rows), "classes")
			if all.Unreachable.Count == 0 {
				fmt.Fprintln(w, "(a dump taken without -all has no unreachable objects: `jcmd PID GC.heap_dump -all FILE` keeps them)")
			}
		}
	case "duplicate-classes":
		dups, total, err := x.DuplicateClasses(0, limit)
		if err != nil {
			return err
		}
		out = map[string]any{"view": view, "classes": dups, "total": total}
		if !opt.asJSON {
			fmt.Fprintf(w, "Classes loaded by more than one class loader: %s\n", analyze.FormatCount(int64(total)))
			for _, d := range dups {
				fmt.Fprintf(w, "%s: %s loaders, %s instances\n", visible(d.Class), analyze.FormatCount(int64(len(d.Loaders))), analyze.FormatCount(d.Instances))
				for _, l := range d.Loaders {
					fmt.Fprintf(w, "  %14s instances  %s\n", analyze.FormatCount(l.Instances), hprofObjectName(l.Loader))
				}
			}
			hprofMore(w, total, len(dups), "classes")
		}
	case "path":
		if object < 0 || object >= int64(x.Objects()) {
			fmt.Fprintf(std.err, "leakui hprof: -object %d: the dump has objects 0 to %d\n", object, x.Objects()-1)
			return errUsage
		}
		steps, index, length, err := x.PathToRoot(uint32(object), max(limit, 2))
		if err != nil {
			return err
		}
		out = map[string]any{"view": view, "object": object, "steps": steps, "length": length}
		if !opt.asJSON {
			fmt.Fprintf(w, "Shortest path from a GC root to object %d, through strong references only (%s steps)\n", object, analyze.FormatCount(int64(length)))
			prev := -1
			for i, st := range steps {
				if prev >= 0 && index[i] > prev+1 {
					fmt.Fprintf(w, "   … %s steps left out\n", analyze.FormatCount(int64(index[i]-prev-1)))
				}
				prev = index[i]
				how := "GC root: " + visible(st.Root)
				if index[i] > 0 {
					how = "." + visible(st.Field)
				}
				fmt.Fprintf(w, "%6d  %s → %s\n", index[i], how, hprofObjectName(st.Object))
			}
		}
	}
	if opt.asJSON {
		return jvmWriteJSON(w, out)
	}
	return nil
}

// printClassGroups writes groups of objects by class.
func printClassGroups(w io.Writer, groups []hprof.ClassGroup) {
	fmt.Fprintf(w, "%14s %12s %12s  %s\n", "objects", "shallow", "retained", "class")
	for _, g := range groups {
		fmt.Fprintf(w, "%14s %12s %12s  %s\n", analyze.FormatCount(g.Objects), analyze.FormatBytes(g.Shallow), analyze.FormatBytes(g.Retained), visible(g.Name))
	}
}

// hprofObjectName names an object: its class and identifier, its text.
func hprofObjectName(o hprof.Object) string {
	s := visible(o.Class)
	if o.ID != "" {
		s += " @" + o.ID
	}
	if o.Text != "" {
		s += fmt.Sprintf(" %q", visible(o.Text))
	}
	return s
}
