package pprof

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/fixtures"
)

// TestSandwichMatchesTop: every function's sandwich has the flat and cum of its
// top table row, on every fixture's default sample type.
func TestSandwichMatchesTop(t *testing.T) {
	for _, path := range fixturesGlob(t, "pprof") {
		p := loadFile(t, path)
		si := p.DefaultSampleIndex()
		top := mustTop(t, p, si)
		for i, row := range top.Rows {
			if i == 40 {
				break
			}
			sw, err := p.Sandwich(si, row.Name)
			if err != nil || sw.Flat != row.Flat || sw.Cum != row.Cum || sw.Total != top.Total {
				t.Errorf("%s: %s: sandwich flat %d cum %d total %d (%v); top says %d %d %d",
					filepath.Base(path), row.Name, sw.Flat, sw.Cum, sw.Total, err, row.Flat, row.Cum, top.Total)
			}
		}
		if _, err := p.Sandwich(si, "no.such.function"); !errors.Is(err, analyze.ErrInvalidParameter) {
			t.Errorf("%s: unknown function: %v", filepath.Base(path), err)
		}
	}
}

// peekEdge is one caller or callee line of `go tool pprof -peek`.
var peekEdge = regexp.MustCompile(`^\s+(-?[0-9.]+)([a-zA-Z]*)\s+\S+%\s+\|\s+(.*?)(?: \((?:partial-)?inline\))?$`)

// runPprofPeek runs `go tool pprof -peek '^name$'` and returns the callers and
// callees it prints, with the value of each edge.
func runPprofPeek(t *testing.T, unit, path string, si int, name string) (callers, callees []SandwichEdge) {
	t.Helper()
	args := append([]string{"-peek", "^" + regexp.QuoteMeta(name) + "$", "-nodefraction=0", "-edgefraction=0", "-symbolize=none",
		"-sample_index=" + strconv.Itoa(si)}, unitFlag(unit)...)
	cmd := exec.Command(pprofTool(t), append(args, path)...)
	cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir(), "HOME="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pprof -peek %s: %v", name, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	below := false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasSuffix(line, "| "+name) || strings.Contains(line, "| "+name+" (") {
			below = true
			continue
		}
		m := peekEdge.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		e := SandwichEdge{Name: m[3], Value: mustInt(t, m[1], line)}
		if below {
			callees = append(callees, e)
		} else {
			callers = append(callers, e)
		}
	}
	return callers, callees
}

// TestSandwichMatchesPprofPeek compares the callers and callees of the largest
// functions with what `go tool pprof -peek` prints for them.
func TestSandwichMatchesPprofPeek(t *testing.T) {
	for _, name := range []string{"parca-self-heap-t9-1644509299.pb.gz", "flameshow-cpu-10s.pb.gz", "goprofnotes-block-net.pb.gz"} {
		path := fixtures.Path(t, "pprof", name)
		p := loadFile(t, path)
		si := p.DefaultSampleIndex()
		rows := slices.Clone(mustTop(t, p, si).Rows)
		slices.SortStableFunc(rows, func(a, b TopRow) int { return int(abs64(b.Cum) - abs64(a.Cum)) })
		for _, row := range rows[:min(12, len(rows))] {
			t.Run(name+"/"+row.Name, func(t *testing.T) {
				t.Parallel()
				sw, err := p.Sandwich(si, row.Name)
				if err != nil {
					t.Fatal(err)
				}
				callers, callees := runPprofPeek(t, p.SampleTypes()[si].Unit, path, si, row.Name)
				// The parse found pprof's lines: a function that is not always the
				// outermost frame has callers there.
				if sw.Roots != sw.Cum && len(callers) == 0 {
					t.Fatalf("no caller parsed from pprof -peek for %s (roots %d, cum %d)", row.Name, sw.Roots, sw.Cum)
				}
				byName := func(e []SandwichEdge) []SandwichEdge {
					out := slices.Clone(e)
					slices.SortFunc(out, func(a, b SandwichEdge) int { return strings.Compare(a.Name, b.Name) })
					return out
				}
				if !slices.Equal(byName(sw.Callers), byName(callers)) {
					t.Errorf("callers %v, pprof -peek says %v", sw.Callers, callers)
				}
				if !slices.Equal(byName(sw.Callees), byName(callees)) {
					t.Errorf("callees %v, pprof -peek says %v", sw.Callees, callees)
				}
			})
		}
	}
}
