package pprof

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// pprofTop is what `go tool pprof -top` printed: the total and the rows.
type pprofTop struct {
	Total int64
	Rows  []TopRow
}

var (
	pprofTotalLine = regexp.MustCompile(`of (-?[0-9.]+)([a-zA-Z]*) total`)
	pprofRowLine   = regexp.MustCompile(`^\s*(-?[0-9.]+)([a-zA-Z]*)\s+\S+%\s+\S+%\s+(-?[0-9.]+)([a-zA-Z]*)\s+\S+%\s\s(.*?)(?: \((?:partial-)?inline\))?$`)
	pprofToolOnce  sync.Once
	pprofToolPath  string
)

// pprofTool returns the path of the pprof binary that `go tool pprof` runs, so the
// tests call it directly instead of through the go command each time.
func pprofTool(t testing.TB) string {
	t.Helper()
	pprofToolOnce.Do(func() {
		out, err := exec.Command("go", "tool", "-n", "pprof").Output()
		if err == nil {
			pprofToolPath = strings.TrimSpace(string(out))
		}
	})
	if pprofToolPath == "" {
		t.Fatal("go tool -n pprof found no pprof binary")
	}
	return pprofToolPath
}

// unitFlag picks a -unit that makes pprof print exact integers.
func unitFlag(unit string) []string {
	switch unit {
	case "bytes":
		return []string{"-unit=B"}
	case "nanoseconds":
		return []string{"-unit=ns"}
	}
	return nil
}

// runPprofTop runs the real pprof on a file and parses its -top output.
func runPprofTop(t testing.TB, unit string, args ...string) pprofTop {
	t.Helper()
	full := append([]string{"-top", "-nodefraction=0", "-symbolize=none"}, unitFlag(unit)...)
	full = append(full, args...)
	cmd := exec.Command(pprofTool(t), full...)
	cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir(), "HOME="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pprof %v: %v\n%s", full, err, stderr.String())
	}
	var res pprofTop
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	inRows := false
	for sc.Scan() {
		line := sc.Text()
		if m := pprofTotalLine.FindStringSubmatch(line); m != nil && !inRows {
			res.Total = mustInt(t, m[1], line)
			continue
		}
		if strings.Contains(line, "flat%") {
			inRows = true
			continue
		}
		if !inRows {
			continue
		}
		m := pprofRowLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("cannot parse pprof row %q", line)
		}
		res.Rows = append(res.Rows, TopRow{Name: m[5], Flat: mustInt(t, m[1], line), Cum: mustInt(t, m[3], line)})
	}
	return res
}

func mustInt(t testing.TB, s, line string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("pprof printed a non-integer %q in %q (choose an exact -unit)", s, line)
	}
	return n
}

func loadFile(t testing.TB, path string) *Profile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := Open(Reader(f), Options{})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return p
}

// TestTopMatchesPprof compares leakui's total and top 20 rows with the real
// `go tool pprof -top -nodecount=20 -nodefraction=0` for every fixture profile and
// every sample type it has.
func TestTopMatchesPprof(t *testing.T) {
	for _, path := range fixturesGlob(t, "pprof") {
		p := loadFile(t, path)
		for si, st := range p.SampleTypes() {
			t.Run(fmt.Sprintf("%s/%s", filepath.Base(path), st.Type), func(t *testing.T) {
				t.Parallel()
				want := runPprofTop(t, st.Unit, "-nodecount=20", "-sample_index="+strconv.Itoa(si), path)
				got := mustTop(t, p, si)
				compareTop(t, got, want, 20)
			})
		}
	}
}

// compareTop checks the total and the first n rows, name by name.
func compareTop(t *testing.T, got TopResult, want pprofTop, n int) {
	t.Helper()
	if got.Total != want.Total {
		t.Errorf("total = %d, pprof says %d", got.Total, want.Total)
	}
	rows := got.Rows
	if len(rows) > n {
		rows = rows[:n]
	}
	if len(rows) != len(want.Rows) {
		t.Fatalf("%d rows, pprof printed %d", len(rows), len(want.Rows))
	}
	for i, w := range want.Rows {
		if rows[i] != w {
			t.Errorf("row %d = %+v, pprof says %+v", i, rows[i], w)
		}
	}
}

// TestTopFullTableMatchesPprof compares every row, not only the first 20, on the
// default sample type of each fixture: the report page can show all of them.
func TestTopFullTableMatchesPprof(t *testing.T) {
	for _, path := range fixturesGlob(t, "pprof") {
		p := loadFile(t, path)
		si := p.DefaultSampleIndex()
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			want := runPprofTop(t, p.SampleTypes()[si].Unit, path)
			compareTop(t, mustTop(t, p, si), want, len(want.Rows))
		})
	}
}
