package goroutines

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/leakui/leakui/internal/testtool"

	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/greptest"
)

func parseGoroutineFile(t *testing.T, path string) *Dump {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := Parse(f, 0)
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	return d
}

// TestGoroutineFixtureDumps groups every shared goroutine dump and checks the
// groups against the dump itself, read with grep: for debug=1, the total line and
// the count of every record; for tracebacks, the goroutine headers (how many, which
// ids, which state and wait each has).
func TestGoroutineFixtureDumps(t *testing.T) {
	for _, path := range fixtures.Glob(t, "goroutines", "*") {
		name := filepath.Base(path)
		d := parseGoroutineFile(t, path)
		groups := Groups(d)
		if countGoroutines(groups) != d.Total() || d.Total() == 0 || d.Truncated {
			t.Errorf("%s: groups hold %d of %d goroutines, truncated %v", name, countGoroutines(groups), d.Total(), d.Truncated)
		}
		for i := 1; i < len(groups); i++ {
			if !groups[i-1].Panicking && groups[i-1].Count < groups[i].Count {
				t.Errorf("%s: group %d (%d) is smaller than group %d (%d)", name, i-1, groups[i-1].Count, i, groups[i].Count)
			}
		}
		if d.Format == FormatDebug1 {
			checkDebug1GoroutinesAgainstGrep(t, name, path, d, groups)
			continue
		}
		checkGoroutinesAgainstGrep(t, name, path, d, groups)
		checkGoroutineWaitsAgainstGrep(t, name, path, groups)
	}
}

// checkDebug1GoroutinesAgainstGrep checks a debug=1 dump: the total is the one on its first
// line and the group counts are the record counts ("N @ 0x…"), none merged or lost.
func checkDebug1GoroutinesAgainstGrep(t *testing.T, name, path string, d *Dump, groups []Group) {
	t.Helper()
	total := greptest.Output(t, "-oE", "^goroutine profile: total [0-9]+", path)
	declared, _ := strconv.Atoi(strings.TrimPrefix(total[0], "goroutine profile: total "))
	if d.Total() != declared || d.DeclaredTotal != declared {
		t.Errorf("%s: %d goroutines (declared %d), the dump says total %d", name, d.Total(), d.DeclaredTotal, declared)
	}
	var records []int
	for _, r := range greptest.Output(t, "-oE", "^[0-9]+ @", path) {
		n, _ := strconv.Atoi(strings.TrimSuffix(r, " @"))
		records = append(records, n)
	}
	var counts []int
	for _, g := range groups {
		counts = append(counts, g.Count)
		if g.State != "" || len(g.IDs) != 0 {
			t.Errorf("%s: a debug=1 group with state %q and %d ids", name, g.State, len(g.IDs))
		}
	}
	slices.Sort(records)
	slices.Sort(counts)
	if !slices.Equal(records, counts) {
		t.Errorf("%s: group counts %v, grep finds records of %v", name, counts, records)
	}
}

// checkGoroutineWaitsAgainstGrep checks each group's wait range against the ", N minutes" of
// its goroutines' headers.
func checkGoroutineWaitsAgainstGrep(t *testing.T, name, path string, groups []Group) {
	t.Helper()
	wait := map[int64]int{}
	for _, h := range greptest.Output(t, "-E", `^goroutine [0-9]+ .*\[.*\]:$`, path) {
		id, _ := strconv.ParseInt(strings.Fields(h)[1], 10, 64)
		for _, part := range strings.Split(h[strings.IndexByte(h, '[')+1:len(h)-2], ", ") {
			if m, ok := strings.CutSuffix(part, " minutes"); ok {
				wait[id], _ = strconv.Atoi(m)
			}
		}
	}
	for _, g := range groups {
		lo, hi := -1, -1
		for _, id := range g.IDs {
			w := wait[id]
			if lo < 0 || w < lo {
				lo = w
			}
			hi = max(hi, w)
		}
		if g.WaitMin != lo || g.WaitMax != hi {
			t.Errorf("%s: group %v waits %d–%d minutes, its headers say %d–%d", name, g.IDs, g.WaitMin, g.WaitMax, lo, hi)
		}
	}
}

// TestGoroutineFixtureErigonLeak checks the real leak PROVENANCE.md describes: 168
// groups, the largest one 12096 goroutines in webseedPeer.requester on sync.Cond.Wait.
func TestGoroutineFixtureErigonLeak(t *testing.T) {
	d := parseGoroutineFile(t, fixtures.Path(t, "goroutines", "erigon-debug1-20161-goroutines.txt"))
	groups := Groups(d)
	if len(groups) != 168 {
		t.Errorf("%d groups, want 168", len(groups))
	}
	top := groups[0]
	funcs := top.Stack.Funcs()
	if top.Count != 12096 || funcs[1] != "sync.(*Cond).Wait" || funcs[2] != "github.com/anacrolix/torrent.(*webseedPeer).requester" {
		t.Errorf("largest group: %d goroutines in %v", top.Count, funcs)
	}
	if f := top.Stack.Frames[2]; f.File != "github.com/anacrolix/torrent@v1.54.0/webseed-peer.go" || f.Line != 123 {
		t.Errorf("requester frame at %s", f.Location())
	}
}

// TestGoroutineFixtureFatalError reads the gin crash: noise around it, the fatal
// error and signal lines, the runtime stack (not a goroutine), and goroutine 1
// first, with its frames; grep and sed read the same lines from the file.
func TestGoroutineFixtureFatalError(t *testing.T) {
	path := fixtures.Path(t, "goroutines", "gin-fatal-error-unexpected-signal-darwin.txt")
	d := parseGoroutineFile(t, path)
	c := d.Crash
	if c == nil {
		t.Fatal("no crash")
	}
	message := strings.TrimPrefix(greptest.Output(t, "-m1", "^fatal error: ", path)[0], "fatal error: ")
	signal := greptest.Output(t, "-m1", `^\[signal `, path)[0]
	if d.Format != FormatFatal || c.Kind != FormatFatal || c.Message != message || c.Signal != signal || c.Goroutine != 1 {
		t.Errorf("crash %+v in format %q; want fatal error %q, %q, goroutine 1", c, d.Format, message, signal)
	}
	out, err := exec.Command(testtool.Require(t, "sed", "sed"), "-n", `/^runtime stack:/,/^$/p`, path).Output()
	if err != nil {
		t.Fatal(err)
	}
	var runtimeCalls []string
	for _, l := range strings.Split(string(out), "\n") {
		// A call is "name(args)" with no space in the name; "stack: frame={…} stack=[…)" is not.
		if i := strings.LastIndexByte(l, '('); i > 0 && strings.HasSuffix(l, ")") && !strings.Contains(l[:i], " ") {
			runtimeCalls = append(runtimeCalls, l[:i])
		}
	}
	var got []string
	for _, f := range c.RuntimeStack {
		got = append(got, f.Func)
	}
	if !slices.Equal(got, runtimeCalls) || len(got) == 0 {
		t.Errorf("runtime stack %v, sed finds %v", got, runtimeCalls)
	}
	out, err = exec.Command(testtool.Require(t, "sed", "sed"), "-n", `/^goroutine 1 /,$p`, path).Output()
	if err != nil {
		t.Fatal(err)
	}
	locations := 0
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") {
			locations++
		}
	}
	groups := Groups(d)
	if len(groups) != 1 || !groups[0].Panicking || len(groups[0].Stack.Frames) != locations || groups[0].State != "syscall" {
		t.Errorf("groups %+v; want goroutine 1 panicking, syscall, with %d frames", groups, locations)
	}
	if d.IgnoredLines == 0 {
		t.Error("the go run banner and exit status were not counted as ignored lines")
	}
}

// TestGoroutineFixtureFramesElided checks a 100-frame stack that ends with the
// runtime's "...additional frames elided..." marker.
func TestGoroutineFixtureFramesElided(t *testing.T) {
	path := fixtures.Path(t, "goroutines", "gostackparse-frameselided-stackoverflow.txt")
	d := parseGoroutineFile(t, path)
	locations := len(greptest.Output(t, "-E", "^\t.*:[0-9]+", path))
	frames := d.Goroutines[0].Stack.Frames
	last := frames[len(frames)-1]
	if len(d.Goroutines) != 1 || len(frames) != locations+1 || !last.Elided || last.Func != "...additional frames elided..." {
		t.Errorf("%d goroutines, %d frames ending in %+v; want 1 goroutine, %d frames and the marker", len(d.Goroutines), len(frames), last, locations)
	}
}

// TestGoroutineFixtureAncestors compares the tracebackancestors dump with the plain
// Go 1.21 dump of the same program: the ancestors' frames are neither goroutines
// nor part of a stack, so every group is the same.
func TestGoroutineFixtureAncestors(t *testing.T) {
	plain := parseGoroutineFile(t, fixtures.Path(t, "goroutines", "goleak-http-debug2-go121.txt"))
	ancestors := parseGoroutineFile(t, fixtures.Path(t, "goroutines", "goleak-http-tracebackancestors.txt"))
	for _, g := range compareDumps(plain, ancestors) {
		if g.Change.Delta != 0 || g.Count != 1 {
			t.Errorf("group %v created by %+v: %d goroutines, %+v; want the same in both", g.Stack.Funcs(), g.Stack.CreatedBy, g.Count, g.Change)
		}
	}
	for _, g := range ancestors.Goroutines {
		if g.ID == 24 && (len(g.Stack.Frames) != 1 || g.Stack.CreatedBy.Func != "net/http.(*Transport).dialConn" || g.CreatorID != 21) {
			t.Errorf("goroutine 24: %v created by %+v in %d", g.Stack.Funcs(), g.Stack.CreatedBy, g.CreatorID)
		}
	}
}

// goroutineTracesBlock is one stack of `go tool pprof -traces`: its labels, count and
// functions, innermost first.
type goroutineTracesBlock struct {
	labels  []string
	count   int
	counted bool // the count line was read
	funcs   []string
}

// goroutinePprofTraces runs `go tool pprof -traces` with args and reads its blocks.
func goroutinePprofTraces(t *testing.T, args ...string) []goroutineTracesBlock {
	t.Helper()
	out, err := exec.Command("go", append([]string{"tool", "pprof", "-traces"}, args...)...).Output()
	if err != nil {
		t.Fatalf("go tool pprof -traces %v: %v", args, err)
	}
	var blocks []goroutineTracesBlock
	var cur *goroutineTracesBlock
	for _, l := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(l, "-----------+"):
			blocks = append(blocks, goroutineTracesBlock{})
			cur = &blocks[len(blocks)-1]
		case cur == nil || strings.TrimSpace(l) == "":
		case !cur.counted && !strings.HasPrefix(l, " "):
			cur.labels = append(cur.labels, l)
		case !cur.counted:
			fields := strings.Fields(l)
			n, err := strconv.Atoi(fields[0])
			if err != nil {
				t.Fatalf("pprof -traces: count line %q: %v", l, err)
			}
			cur.count, cur.counted = n, true
			cur.funcs = append(cur.funcs, strings.TrimSuffix(strings.Join(fields[1:], " "), " (inline)"))
		default:
			cur.funcs = append(cur.funcs, strings.TrimSuffix(strings.TrimSpace(l), " (inline)"))
		}
	}
	return slices.DeleteFunc(blocks, func(b goroutineTracesBlock) bool { return !b.counted })
}

// goroutineTracesKey identifies a stack the way -traces shows it: labels and functions.
func goroutineTracesKey(labels []string, funcs []string) string {
	labels = slices.Sorted(slices.Values(labels))
	return strings.Join(labels, ";") + "|" + strings.Join(funcs, ";")
}

func groupGoroutineTracesKey(g *Group) string {
	var labels []string
	for k, v := range g.Labels {
		labels = append(labels, k+":  "+v)
	}
	return goroutineTracesKey(labels, g.Stack.Funcs())
}

// TestGoroutineFixtureProtos groups the proto goroutine profiles and checks every
// stack's count against `go tool pprof -traces`.
func TestGoroutineFixtureProtos(t *testing.T) {
	for _, name := range []string{"flameshow-goroutine.pb.gz", "goprofnotes-goroutine-snap1-debug0.pb.gz", "goprofnotes-goroutine-snap2-debug0.pb.gz"} {
		path := fixtures.Path(t, "pprof", name)
		d := parseGoroutineFile(t, path)
		if d.Format != FormatProto || d.Time.IsZero() {
			t.Errorf("%s: format %q, time %v", name, d.Format, d.Time)
		}
		want := map[string]int{}
		for _, b := range goroutinePprofTraces(t, path) {
			want[goroutineTracesKey(b.labels, b.funcs)] += b.count
		}
		got := map[string]int{}
		for _, g := range Groups(d) {
			got[groupGoroutineTracesKey(&g)] += g.Count
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d distinct stacks, pprof shows %d", name, len(got), len(want))
		}
		for k, n := range want {
			if got[k] != n {
				t.Errorf("%s: stack %s: %d goroutines, pprof says %d", name, k, got[k], n)
			}
		}
	}
	d := parseGoroutineFile(t, fixtures.Path(t, "pprof", "flameshow-goroutine.pb.gz"))
	if d.Total() != 37 {
		t.Errorf("flameshow: %d goroutines, PROVENANCE.md says 37", d.Total())
	}
}
