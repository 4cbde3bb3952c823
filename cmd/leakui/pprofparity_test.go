package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/leakui/leakui/internal/fixtures"
)

// filterFlagSets are pprof's sample filters TestTopFiltersEqualPprof and the
// others run on every fixture: each option alone, numeric and string tag
// filters with and without a key, and all of them at once.
var filterFlagSets = [][]string{
	{"-focus=runtime"},
	{"-ignore=runtime"},
	{"-hide=runtime", "-nodefraction=0"},
	{"-show=main|runtime|\\[", "-nodecount=12"},
	{"-focus=runtime", "-ignore=sync", "-hide=internal", "-show=."},
	{"-tagfocus=1kb:"},
	{"-tagfocus=bytes=:64", "-nodefraction=0"},
	{"-tagignore=4kb"},
	{"-tagfocus=test_label=test_value"},
	{"-tagignore=test_label:.*"},
	{"-focus=.", "-tagfocus=16b:1mb", "-tagignore=32kb", "-hide=sync", "-unit=kB"},
}

// filteredOut counts the comparisons whose filters changed the report, so that
// a set that matches nothing anywhere cannot pass vacuously.
type filteredOut struct{ changed, total atomic.Int64 }

func (c *filteredOut) add(filtered, whole string) {
	c.total.Add(1)
	if rowsOf(filtered) != rowsOf(whole) {
		c.changed.Add(1)
	}
}

func (c *filteredOut) check(t *testing.T, min int64) {
	t.Helper()
	if c.changed.Load() < min {
		t.Errorf("the filters changed %d of %d reports; want at least %d", c.changed.Load(), c.total.Load(), min)
	}
}

// rowsOf is a report without its header, which names the filters.
func rowsOf(s string) string {
	if i := strings.Index(s, "flat%"); i >= 0 {
		return s[i:]
	}
	return s
}

// TestTopFiltersEqualPprof runs `leakui top` and `go tool pprof -top` with
// pprof's sample filters (-focus, -ignore, -hide, -show, -tagfocus, -tagignore)
// on every profile in testdata/pprof and requires byte-identical output: the
// legend of active filters, the total of the whole profile, the rows of what
// the filters keep.
func TestTopFiltersEqualPprof(t *testing.T) {
	var seen filteredOut
	t.Cleanup(func() { seen.check(t, 40) })
	for _, path := range fixtures.Glob(t, "pprof", "*") {
		for fi, flags := range filterFlagSets {
			t.Run(fmt.Sprintf("%s/%d", filepath.Base(path), fi), func(t *testing.T) {
				t.Parallel()
				want := goToolPprof(t, append(append([]string{"-top", "-symbolize=none"}, flags...), path)...)
				code, got, errs := runCLI(t, append(append([]string{"top"}, flags...), path)...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, errs)
				}
				compareText(t, got, want)
				_, whole, _ := runCLI(t, append(append([]string{"top"}, nonFilterFlags(flags)...), path)...)
				seen.add(got, whole)
			})
		}
	}
}

// nonFilterFlags leaves the filters out of flags.
func nonFilterFlags(flags []string) []string {
	var out []string
	for _, f := range flags {
		switch name, _, _ := strings.Cut(strings.TrimLeft(f, "-"), "="); name {
		case "focus", "ignore", "hide", "show", "tagfocus", "tagignore":
		default:
			out = append(out, f)
		}
	}
	return out
}

// comparablePairs are every ordered pair of distinct fixtures of the same
// sample types (what pprof can diff).
func comparablePairs(t *testing.T) [][2]string {
	t.Helper()
	paths := fixtures.Glob(t, "pprof", "*")
	types := map[string]string{}
	for _, p := range paths {
		var names []string
		for _, st := range sampleTypes(t, p) {
			names = append(names, st.Type+"/"+st.Unit)
		}
		types[p] = strings.Join(names, ",")
	}
	var pairs [][2]string
	for _, a := range paths {
		for _, b := range paths {
			if a != b && types[a] == types[b] {
				pairs = append(pairs, [2]string{a, b})
			}
		}
	}
	return pairs
}

// TestDiffEveryPairEqualsPprof runs `leakui diff` and `go tool pprof -top
// -diff_base` on every pair of fixtures pprof can compare, unfiltered and with
// a filter, and requires the same text. Only rows that print the same name are
// compared as a set: pprof's order for them is not defined (its sort calls two
// nodes of one printed name neither less nor greater, and the nodes come from
// a map, so it differs from one run to the next), and leakui orders them by
// |cum|, then by what pprof's node info prints.
func TestDiffEveryPairEqualsPprof(t *testing.T) {
	pairs := comparablePairs(t)
	if len(pairs) < 50 {
		t.Fatalf("only %d comparable pairs", len(pairs))
	}
	for _, pair := range pairs {
		for fi, flags := range [][]string{{"-nodefraction=0"}, {"-focus=runtime|main", "-tagignore=4kb", "-nodecount=15"}} {
			t.Run(fmt.Sprintf("%s..%s/%d", filepath.Base(pair[0]), filepath.Base(pair[1]), fi), func(t *testing.T) {
				t.Parallel()
				want := goToolPprof(t, append(append([]string{"-top", "-symbolize=none", "-diff_base=" + pair[0]}, flags...), pair[1])...)
				code, got, errs := runCLI(t, append(append([]string{"diff"}, flags...), pair[0], pair[1])...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, errs)
				}
				compareTextTies(t, got, want)
			})
		}
	}
}

// tieRow splits a -top row into its flat and sum% columns and its name.
var tieRow = regexp.MustCompile(`^\s*(\S+)\s+\S+\s+(\S+)\s+\S+\s+\S+\s\s(.*)$`)

// compareTextTies is compareText, but runs of rows with the same flat and the
// same name (pprof's undefined order) are compared as sets.
func compareTextTies(t *testing.T, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	if len(g) != len(w) {
		compareText(t, got, want)
		return
	}
	key := func(line string) string {
		m := tieRow.FindStringSubmatch(line)
		if m == nil {
			return "\x00" + line // not a row: compared alone
		}
		return m[1] + " " + m[2] + " " + m[3]
	}
	for i := 0; i < len(g); {
		j := i + 1
		for j < len(w) && key(w[j]) == key(w[i]) && !strings.HasPrefix(key(w[i]), "\x00") {
			j++
		}
		gs, ws := slices.Clone(g[i:j]), slices.Clone(w[i:j])
		slices.Sort(gs)
		slices.Sort(ws)
		if !slices.Equal(gs, ws) {
			compareText(t, got, want)
			return
		}
		i = j
	}
}

// TestDiffTiesAreOrderedByCum: two rows of one printed name (the same library
// under two paths) come out in leakui's order, by |cum|, every time, where
// pprof's order is whatever its map gave.
func TestDiffTiesAreOrderedByCum(t *testing.T) {
	base := fixtures.Path(t, "pprof", "google-pprof-cppbench-legacy-text-growthz.heap")
	target := fixtures.Path(t, "pprof", "google-pprof-cppbench-legacy-text-heapz_v2.heap")
	_, out, errs := runCLI(t, "diff", "-unit=B", "-nodefraction=0", base, target)
	var libc []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasSuffix(line, "[libc-2.15.so]") {
			libc = append(libc, strings.Fields(line)[3])
		}
	}
	if want := []string{"2100146B", "-2097152B"}; !slices.Equal(libc, want) {
		t.Errorf("the [libc-2.15.so] rows' cum: %v, want %v\n%s%s", libc, want, out, errs)
	}
}

// TestLabelsEqualPprof runs `leakui labels` and `go tool pprof -tags` on every
// fixture, plain, with another sample type and unit, and filtered, and
// requires the same text; the labelled fixtures must show their labels.
func TestLabelsEqualPprof(t *testing.T) {
	var labelled atomic.Int64
	t.Cleanup(func() {
		if labelled.Load() < 12 {
			t.Errorf("only %d reports listed labels", labelled.Load())
		}
	})
	for _, path := range fixtures.Glob(t, "pprof", "*") {
		for fi, flags := range [][]string{nil, {"-sample_index=0", "-unit=kB"}, {"-focus=runtime"}, {"-tagfocus=1kb:4mb", "-tagignore=test_label=x"}} {
			t.Run(fmt.Sprintf("%s/%d", filepath.Base(path), fi), func(t *testing.T) {
				t.Parallel()
				want := goToolPprof(t, append(append([]string{"-tags", "-symbolize=none"}, flags...), path)...)
				code, got, errs := runCLI(t, append(append([]string{"labels"}, flags...), path)...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, errs)
				}
				compareText(t, got, want)
				if strings.Contains(got, ": Total ") {
					labelled.Add(1)
				}
			})
		}
	}
}

// TestLabelsJSON: the JSON holds the text's numbers exactly, its shares
// adding up as the text's percentages do.
func TestLabelsJSON(t *testing.T) {
	path := fixtures.Path(t, "pprof", "goprofnotes-goroutine-snap1-debug0.pb.gz")
	code, out, errs := runCLI(t, "labels", "-json", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Total int64
		Keys  []struct {
			Key    string
			Total  int64
			Share  float64
			Values []struct {
				Value string
				Total int64
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	// go tool pprof -tags: "test_label: Total 7 of 10 (70.00%)", "7 (70.00%): test_value".
	if got.Total != 10 || len(got.Keys) != 1 || got.Keys[0].Key != "test_label" || got.Keys[0].Total != 7 || got.Keys[0].Share != 0.7 ||
		len(got.Keys[0].Values) != 1 || got.Keys[0].Values[0].Value != "test_value" || got.Keys[0].Values[0].Total != 7 {
		t.Errorf("got %s", out)
	}
}

// graphFlagSets are the -dot flag sets TestGraphEqualsPprofDot runs.
var graphFlagSets = [][]string{
	nil,
	{"-nodecount=10", "-nodefraction=0.01", "-edgefraction=0.01"},
	{"-nodecount=0", "-nodefraction=0", "-edgefraction=0", "-unit=kB"},
	{"-focus=runtime", "-hide=sync", "-tagfocus=1kb:", "-sample_index=0"},
}

// TestGraphEqualsPprofDot runs `leakui graph` and `go tool pprof -dot` on
// every fixture and the synthetic profile (C++ and Rust names, inlined and
// unsymbolized frames) with four flag sets, and requires the same DOT text:
// node for node (their numbers, names, values, colours and tags) and edge for
// edge. The JSON form holds the same nodes and edges.
func TestGraphEqualsPprofDot(t *testing.T) {
	paths := append(fixtures.Glob(t, "pprof", "*"), syntheticProfile(t))
	for _, path := range paths {
		for fi, flags := range graphFlagSets {
			t.Run(fmt.Sprintf("%s/%d", filepath.Base(path), fi), func(t *testing.T) {
				t.Parallel()
				want := goToolPprof(t, append(append([]string{"-dot", "-symbolize=none"}, flags...), path)...)
				code, got, errs := runCLI(t, append(append([]string{"graph"}, flags...), path)...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, errs)
				}
				compareText(t, got, want)
				checkGraphJSON(t, append(append([]string{"graph", "-format=json"}, flags...), path), got)
			})
		}
	}
}

// dotNode and dotEdge match the nodes (not the tags' boxes) and the edges
// between them of pprof's DOT text.
var (
	dotNode = regexp.MustCompile(`(?m)^N(\d+) \[label="`)
	dotEdge = regexp.MustCompile(`(?m)^N(\d+) -> N(\d+) \[label=" [^"]*" .*?tooltip="(.*?) (->|\.\.\.) (.*?) \(`)
	dotTag  = regexp.MustCompile(`(?m)^\S+ \[label = "`)
)

// checkGraphJSON runs args (a graph in JSON) and requires the nodes, edges and
// tags of the DOT text dot.
func checkGraphJSON(t *testing.T, args []string, dot string) {
	t.Helper()
	code, out, errs := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var g struct {
		Nodes []struct {
			ID   int
			Name string
			Tags []struct{ Name string }
		}
		Edges []struct {
			From, To int
			Residual bool
		}
	}
	if err := json.Unmarshal([]byte(out), &g); err != nil {
		t.Fatal(err)
	}
	nodes := dotNode.FindAllStringSubmatch(dot, -1)
	if len(nodes) != len(g.Nodes) {
		t.Fatalf("JSON: %d nodes; DOT: %d", len(g.Nodes), len(nodes))
	}
	names := map[int]string{}
	tags := 0
	for i, n := range g.Nodes {
		if strconv.Itoa(n.ID) != nodes[i][1] {
			t.Errorf("node %d is N%d in the JSON, N%s in the DOT", i, n.ID, nodes[i][1])
		}
		names[n.ID] = n.Name
		tags += len(n.Tags)
	}
	if d := len(dotTag.FindAllString(dot, -1)); d != tags {
		t.Errorf("JSON: %d tags; DOT: %d", tags, d)
	}
	edges := dotEdge.FindAllStringSubmatch(dot, -1)
	if len(edges) != len(g.Edges) {
		t.Fatalf("JSON: %d edges; DOT: %d", len(g.Edges), len(edges))
	}
	for i, e := range g.Edges {
		d := edges[i]
		if strconv.Itoa(e.From) != d[1] || strconv.Itoa(e.To) != d[2] || e.Residual != (d[4] == "...") {
			t.Errorf("edge %d: JSON %+v, DOT %v", i, e, d[1:])
		}
		if unescapeDot(d[3]) != names[e.From] || unescapeDot(d[5]) != names[e.To] {
			t.Errorf("edge %d: JSON %q → %q, DOT %q → %q", i, names[e.From], names[e.To], d[3], d[5])
		}
	}
}

// unescapeDot undoes escapeForDot for names without line breaks.
func unescapeDot(s string) string {
	return strings.NewReplacer(`\\`, `\`, `\"`, `"`).Replace(s)
}

// pprofShown is the "Showing nodes accounting for N" of `go tool pprof -top`
// in bytes: with -nodefraction=0, the sum of what a filter keeps.
var pprofShown = regexp.MustCompile(`Showing nodes accounting for (-?\d+)B?,`)

// TestSeriesFiltersEqualPprof: `leakui series` with pprof's filters follows
// what the filters keep of each snapshot: its totals equal, snapshot by
// snapshot, what `go tool pprof -top` with the same filters shows.
func TestSeriesFiltersEqualPprof(t *testing.T) {
	var paths []string
	for _, name := range []string{"parca-self-heap-t0-1644509272.pb.gz", "parca-self-heap-t6-1644509290.pb.gz", "parca-self-heap-t9-1644509299.pb.gz"} {
		paths = append(paths, fixtures.Path(t, "pprof", name))
	}
	for _, flags := range [][]string{{"-focus=badger"}, {"-ignore=badger", "-hide=runtime"}, {"-tagfocus=1kb:"}, {"-tagignore=32mb", "-show=dgraph"}} {
		t.Run(strings.Join(flags, " "), func(t *testing.T) {
			code, out, errs := runCLI(t, append(append([]string{"series", "-json", "-sample_index=inuse_space", "-keep_order"}, flags...), paths...)...)
			// Three snapshots may read as no leak, a leak or too few to decide.
			if code != 0 && code != seriesLeakExit && code != seriesInconclusiveExit {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var got struct{ Totals []int64 }
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatal(err)
			}
			_, whole, _ := runCLI(t, append([]string{"series", "-json", "-sample_index=inuse_space", "-keep_order"}, paths...)...)
			var all struct{ Totals []int64 }
			if err := json.Unmarshal([]byte(whole), &all); err != nil {
				t.Fatal(err)
			}
			for i, path := range paths {
				m := pprofShown.FindStringSubmatch(goToolPprof(t, append(append([]string{"-top", "-symbolize=none", "-unit=B", "-nodefraction=0", "-sample_index=inuse_space"}, flags...), path)...))
				if m == nil || len(got.Totals) != len(paths) || strconv.FormatInt(got.Totals[i], 10) != m[1] {
					t.Errorf("snapshot %d: series total %v, pprof shows %v", i, got.Totals, m)
				}
				if got.Totals[i] == all.Totals[i] {
					t.Errorf("snapshot %d: the filter kept everything (%d)", i, got.Totals[i])
				}
			}
		})
	}
}

// TestJSONTrimIsPprofs: -json -trim=pprof keeps the rows `go tool pprof -top`
// prints with the same -nodefraction, in its order, and says how many it
// dropped and below which cum, for every fixture and for a diff.
func TestJSONTrimIsPprofs(t *testing.T) {
	dropped := regexp.MustCompile(`(?m)^Dropped (\d+) nodes? \(cum <= (-?\d+)(?:B|ns)?\)$`)
	check := func(t *testing.T, jsonArgs []string, want string) {
		t.Helper()
		code, out, errs := runCLI(t, jsonArgs...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var got struct {
			Rows          []struct{ Name string }
			Dropped       int   `json:"dropped"`
			DroppedCutoff int64 `json:"dropped_cutoff"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, line := range strings.Split(rowsOf(want), "\n")[1:] {
			if m := tieRow.FindStringSubmatch(line); m != nil {
				names = append(names, strings.TrimSuffix(strings.TrimSuffix(m[3], " (inline)"), " (partial-inline)"))
			}
		}
		if len(got.Rows) != len(names) {
			t.Fatalf("%d rows; pprof prints %d", len(got.Rows), len(names))
		}
		for i, r := range got.Rows {
			if r.Name != names[i] {
				t.Errorf("row %d: %q; pprof %q", i, r.Name, names[i])
			}
		}
		m := dropped.FindStringSubmatch(want)
		if m == nil && got.Dropped != 0 || m != nil && (strconv.Itoa(got.Dropped) != m[1] || strconv.FormatInt(got.DroppedCutoff, 10) != m[2]) {
			t.Errorf("dropped %d (cum <= %d); pprof says %v", got.Dropped, got.DroppedCutoff, m)
		}
	}
	for _, path := range fixtures.Glob(t, "pprof", "*") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			sts := sampleTypes(t, path)
			unit := map[string]string{"bytes": "-unit=B", "nanoseconds": "-unit=ns"}[sts[len(sts)-1].Unit]
			if unit == "" {
				unit = "-unit=minimum"
			}
			want := goToolPprof(t, "-top", "-symbolize=none", unit, path)
			check(t, []string{"top", "-json", "-trim=pprof", "-n=0", path}, want)
		})
	}
	base, target := fixtures.Path(t, "pprof", "parca-self-heap-t0-1644509272.pb.gz"), fixtures.Path(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz")
	want := goToolPprof(t, "-top", "-symbolize=none", "-unit=B", "-nodefraction=0.01", "-diff_base="+base, target)
	check(t, []string{"diff", "-json", "-trim=pprof", "-nodefraction=0.01", "-n=0", base, target}, want)
	if code, _, errs := runCLI(t, "top", "-trim=yes", target); code != 2 || !strings.Contains(errs, "-trim is pprof or nothing") {
		t.Errorf("-trim=yes: exit %d, %q", code, errs)
	}
}
