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
	p, err := loadProfileFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
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
