package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/internal/fixtures"
)

var (
	pprofBinOnce sync.Once
	pprofBin     string
)

// goToolPprof runs the pprof of `go tool pprof` (called directly, as
// analyze/pprof's anchor tests do, instead of through the go command each time)
// with args and returns its standard output. HOME and PPROF_TMPDIR point at empty
// directories so that it finds no local binaries and saves nothing.
func goToolPprof(t *testing.T, args ...string) string {
	t.Helper()
	pprofBinOnce.Do(func() {
		out, err := exec.Command("go", "tool", "-n", "pprof").Output()
		if err == nil {
			pprofBin = strings.TrimSpace(string(out))
		}
	})
	if pprofBin == "" {
		t.Fatal("go tool -n pprof found no pprof binary")
	}
	cmd := exec.Command(pprofBin, args...)
	cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir(), "HOME="+t.TempDir(), "PPROF_BINARY_PATH="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pprof %v: %v\n%s", args, err, stderr.String())
	}
	return string(out)
}

// sampleTypes returns the sample types of a profile file.
func sampleTypes(t *testing.T, path string) []pprof.SampleType {
	t.Helper()
	p, err := openProfileFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	return p.SampleTypes()
}

// exactUnit is a -unit other than pprof's default for a sample unit, so that
// the comparison also covers an explicit -unit.
func exactUnit(unit string) string {
	switch unit {
	case "bytes":
		return "kB"
	case "nanoseconds":
		return "ms"
	}
	return "auto"
}

// compareText fails with the first differing line of two outputs.
func compareText(t *testing.T, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Fatalf("line %d differs:\nleakui: %q\npprof:  %q\n(%d and %d lines)", i+1, gl, wl, len(g), len(w))
		}
	}
	t.Fatal("outputs differ")
}

// topFlagSets are the flag sets every profile and sample type is compared with:
// pprof's defaults, and every pprof flag leakui top takes set to something else.
func topFlagSets(unit string) [][]string {
	return [][]string{
		nil,
		{"-nodecount=7", "-nodefraction=0.001", "-edgefraction=0.02", "-unit=" + exactUnit(unit)},
		{"-nodefraction=0", "-edgefraction=0"},
	}
}

// TestTopTextEqualsPprof runs `leakui top` in process and `go tool pprof -top`
// with the same flags on every profile in testdata/pprof, for every sample type it
// has and three flag sets, and requires byte-identical output. pprof runs with
// -symbolize=none, which is what leakui does (it never symbolizes); the File: line
// names the binary's base name on both sides, so nothing is normalised.
func TestTopTextEqualsPprof(t *testing.T) {
	for _, path := range fixtures.Glob(t, "pprof", "*") {
		for si, st := range sampleTypes(t, path) {
			for fi, flags := range topFlagSets(st.Unit) {
				t.Run(fmt.Sprintf("%s/%s/%d", filepath.Base(path), st.Type, fi), func(t *testing.T) {
					t.Parallel()
					args := append([]string{fmt.Sprintf("-sample_index=%d", si)}, flags...)
					want := goToolPprof(t, append(append([]string{"-top", "-symbolize=none"}, args...), path)...)
					code, got, errs := runCLI(t, append(append([]string{"top"}, args...), path)...)
					if code != 0 {
						t.Fatalf("exit %d: %s", code, errs)
					}
					compareText(t, got, want)
				})
			}
		}
	}
}

// diffPairs are the BASE TARGET pairs TestDiffTextEqualsPprof compares.
var diffPairs = [][2]string{
	{"parca-self-heap-t0-1644509272.pb.gz", "parca-self-heap-t6-1644509290.pb.gz"},
	{"parca-self-heap-t6-1644509290.pb.gz", "parca-self-heap-t9-1644509299.pb.gz"},
	{"parca-self-heap-t0-1644509272.pb.gz", "parca-self-heap-t9-1644509299.pb.gz"},
	{"flameshow-heap.pb.gz", "flameshow-heap.pb.gz"},
	{"goprofnotes-goroutine-snap1-debug0.pb.gz", "goprofnotes-goroutine-snap2-debug0.pb.gz"},
}

// TestDiffTextEqualsPprof runs `leakui diff BASE TARGET` and
// `go tool pprof -top -diff_base=BASE TARGET` with the same flags on each pair, for
// every sample type and the flag sets of TestTopTextEqualsPprof, and requires
// byte-identical output (sum% included).
func TestDiffTextEqualsPprof(t *testing.T) {
	for _, pair := range diffPairs {
		base, target := fixtures.Path(t, "pprof", pair[0]), fixtures.Path(t, "pprof", pair[1])
		for si, st := range sampleTypes(t, target) {
			for fi, flags := range topFlagSets(st.Unit) {
				t.Run(fmt.Sprintf("%s..%s/%s/%d", pair[0], pair[1], st.Type, fi), func(t *testing.T) {
					t.Parallel()
					args := append([]string{fmt.Sprintf("-sample_index=%d", si)}, flags...)
					want := goToolPprof(t, append(append([]string{"-top", "-symbolize=none", "-diff_base=" + base}, args...), target)...)
					code, got, errs := runCLI(t, append(append([]string{"diff"}, args...), base, target)...)
					if code != 0 {
						t.Fatalf("exit %d: %s", code, errs)
					}
					compareText(t, got, want)
				})
			}
		}
	}
}

// TestTopNIsNodecount checks that -n stays an alias of -nodecount and that -json
// keeps its first 20 rows by default while the text shows every row that survives
// -nodefraction, as pprof's -top does.
func TestTopNIsNodecount(t *testing.T) {
	path := fixtures.Path(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz")
	_, viaN, _ := runCLI(t, "top", "-n", "5", path)
	_, viaNodecount, _ := runCLI(t, "top", "-nodecount=5", path)
	if viaN != viaNodecount || !strings.Contains(viaN, "Showing top 5 nodes out of") {
		t.Errorf("-n 5 and -nodecount=5 differ or show no top-5 label:\n%s\n%s", viaN, viaNodecount)
	}
	_, all, _ := runCLI(t, "top", path)
	if rows := strings.Count(all, "\n") - strings.Count(all[:strings.Index(all, "flat%")], "\n") - 1; rows <= 20 {
		t.Errorf("the default text output shows %d rows, want every row over -nodefraction (more than 20 here)", rows)
	}
	_, js, _ := runCLI(t, "top", "-json", path)
	if n := strings.Count(js, `"name"`); n != jsonRowsDefault {
		t.Errorf("-json printed %d rows by default, want %d", n, jsonRowsDefault)
	}
}

// TestDiffTextRefusesMismatch checks that the text diff refuses profiles of
// different types, as -json does.
func TestDiffTextRefusesMismatch(t *testing.T) {
	heap := fixtures.Path(t, "pprof", "flameshow-heap.pb.gz")
	goroutine := fixtures.Path(t, "pprof", "flameshow-goroutine.pb.gz")
	for _, args := range [][]string{{"diff", heap, goroutine}, {"diff", "-json", heap, goroutine}} {
		code, out, errs := runCLI(t, args...)
		if code != 1 || out != "" || !strings.Contains(errs, "compare profiles of one type") {
			t.Errorf("leakui %v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

// syntheticProfile writes a profile with what the fixtures may lack: a tab inside
// a function name, C++ and Rust names, inlined frames (one function both inlined
// and called, one only inlined), a location with no lines in a mapping and one in none, comments, a
// doc URL, a build ID, a duration and two sample types of time.
func syntheticProfile(t *testing.T) string {
	t.Helper()
	m := &profile.Mapping{ID: 1, Start: 0x1000, Limit: 0x9000, File: "/usr/local/bin/some-server", BuildID: "abc123", HasFunctions: true}
	var fns []*profile.Function
	fn := func(name string) *profile.Function {
		f := &profile.Function{ID: uint64(len(fns) + 1), Name: name, SystemName: name, Filename: "src/" + strings.ReplaceAll(name, "\t", "_") + ".go"}
		fns = append(fns, f)
		return f
	}
	tab, rust, cpp := fn("main.handle\twith tab"), fn("<alloc::alloc::Global as core::alloc::Allocator>::allocate"), fn("std::vector<int>::push_back")
	inl, caller, main := fn("example.com/pkg/v2.(*T).inlined[...]"), fn("example.com/pkg/v2.caller"), fn("main.main")
	other, pure := fn("example.com/other.call"), fn("example.com/pkg.pureInlined")
	var locs []*profile.Location
	loc := func(addr uint64, m *profile.Mapping, fs ...*profile.Function) *profile.Location {
		l := &profile.Location{ID: uint64(len(locs) + 1), Address: addr, Mapping: m}
		for i, f := range fs {
			l.Line = append(l.Line, profile.Line{Function: f, Line: int64(10 + i)})
		}
		locs = append(locs, l)
		return l
	}
	lTab, lRust, lCpp := loc(0x1100, m, tab), loc(0x1200, m, rust), loc(0x1300, m, cpp)
	lInl := loc(0x1400, m, inl, caller)  // inl inlined into caller
	lCallInl := loc(0x1480, m, inl)      // and called by other
	lPure := loc(0x1490, m, pure, other) // only ever inlined
	lOther := loc(0x1510, m, other)
	lCaller, lMain := loc(0x1500, m, caller), loc(0x1600, m, main)
	lBare, lNone := loc(0x1700, m), loc(0x20000, nil)
	sample := func(cpu int64, ls ...*profile.Location) *profile.Sample {
		return &profile.Sample{Value: []int64{cpu / 1e7, cpu}, Location: ls}
	}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 1e7,
		TimeNanos: 1700000000123456789, DurationNanos: 30e9,
		Comments: []string{"a comment", "#hidden comment"}, DocURL: "https://example.com/doc",
		Mapping: []*profile.Mapping{m}, Function: fns, Location: locs,
		Sample: []*profile.Sample{
			sample(3e9, lTab, lCaller, lMain),
			sample(2e9, lRust, lCpp, lMain),
			sample(1e9, lInl, lMain),
			sample(5e8, lCallInl, lOther, lMain),
			sample(2e8, lPure, lMain),
			sample(4e7, lBare, lMain),
			sample(3e7, lNone, lMain),
			sample(1e7, lCpp, lCpp, lMain), // recursion
		},
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "synthetic.pb.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTopTextEqualsPprofSynthetic compares leakui top with go tool pprof -top on
// the synthetic profile, for both sample types and several flag sets; it checks
// that the output has the things it is there for (the tab, the inline marks, the
// header lines), so that a change in pprof's output cannot make it vacuous.
func TestTopTextEqualsPprofSynthetic(t *testing.T) {
	path := syntheticProfile(t)
	var seen strings.Builder
	for _, si := range []string{"0", "1"} {
		for _, flags := range [][]string{nil, {"-nodefraction=0"}, {"-nodefraction=0", "-edgefraction=0.2"}, {"-nodecount=3", "-unit=ms"}, {"-unit=hrs"}} {
			args := append([]string{"-sample_index=" + si}, flags...)
			want := goToolPprof(t, append(append([]string{"-top", "-symbolize=none"}, args...), path)...)
			code, got, errs := runCLI(t, append(append([]string{"top"}, args...), path)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			t.Run(strings.Join(args, " "), func(t *testing.T) { compareText(t, got, want) })
			seen.WriteString(got)
		}
	}
	// A diff of the profile with itself: merged headers (the durations add up, the
	// comments are not repeated) and every row cancelling out.
	for _, si := range []string{"0", "1"} {
		args := []string{"-sample_index=" + si, "-nodefraction=0"}
		want := goToolPprof(t, append(append([]string{"-top", "-symbolize=none", "-diff_base=" + path}, args...), path)...)
		code, got, errs := runCLI(t, append(append([]string{"diff"}, args...), path, path)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		t.Run("diff "+strings.Join(args, " "), func(t *testing.T) { compareText(t, got, want) })
		seen.WriteString(got)
	}
	for _, s := range []string{"Duration: 60s", "File: some-server", "Build ID: abc123", "a comment", "Doc: https://example.com/doc", "Duration: 30s",
		"main.handle\twith tab", "(inline)", "(partial-inline)", "[some-server]", "<unknown>", "Dropped", "Showing top 3 nodes"} {
		if !strings.Contains(seen.String(), s) {
			t.Errorf("no output has %q", s)
		}
	}
}
