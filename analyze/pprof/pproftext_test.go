package pprof

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var pprofDroppedLine = regexp.MustCompile(`^Dropped (\d+) nodes? \(cum <= (\d+)[a-zA-Z]*\)$`)

// pprofTopText is what TestPprofTrimMatchesPprof reads of `go tool pprof -top`:
// the rows' names and inline marks, and the "Dropped N nodes (cum <= C)" line.
type pprofTopText struct {
	names   []string
	marks   map[string]string
	dropped int
	cutoff  int64
}

func runPprofTopText(t *testing.T, unit string, args ...string) pprofTopText {
	t.Helper()
	args = append(append([]string{"-top", "-symbolize=none"}, unitFlag(unit)...), args...)
	cmd := exec.Command(pprofTool(t), args...)
	cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir(), "HOME="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pprof %v: %v", args, err)
	}
	res := pprofTopText{marks: map[string]string{}}
	inRows := false
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		if m := pprofDroppedLine.FindStringSubmatch(line); m != nil && !inRows {
			res.dropped, _ = strconv.Atoi(m[1])
			res.cutoff, _ = strconv.ParseInt(m[2], 10, 64)
		}
		if strings.Contains(line, "flat%") {
			inRows = true
			continue
		}
		if inRows {
			m := pprofRowLine.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("cannot parse %q", line)
			}
			res.names = append(res.names, m[5])
			for _, mark := range []string{"(inline)", "(partial-inline)"} {
				if strings.HasSuffix(line, " "+mark) {
					res.marks[m[5]] = mark
				}
			}
		}
	}
	return res
}

// TestPprofTrimMatchesPprof checks TopResult.PprofTrim and Profile.InlineMarks,
// which the web table uses, against go tool pprof's -top on every fixture and
// sample type: with the default -nodefraction (0.005) the same rows in the same
// order, the same "Dropped N nodes" count and cut-off, the same inline marks; with
// -nodefraction=0 (the web table's every row) the same marks.
func TestPprofTrimMatchesPprof(t *testing.T) {
	for _, path := range fixturesGlob(t, "pprof") {
		p := loadFile(t, path)
		for si, st := range p.SampleTypes() {
			t.Run(fmt.Sprintf("%s/%s", filepath.Base(path), st.Type), func(t *testing.T) {
				t.Parallel()
				want := runPprofTopText(t, st.Unit, "-sample_index="+strconv.Itoa(si), path)
				kept, dropped, cutoff := mustTop(t, p, si).PprofTrim(DefaultNodeFraction)
				if dropped != want.dropped || (dropped > 0 && cutoff != want.cutoff) {
					t.Errorf("dropped %d (cum <= %d), pprof %d (cum <= %d)", dropped, cutoff, want.dropped, want.cutoff)
				}
				if len(kept) != len(want.names) {
					t.Fatalf("%d rows kept, pprof shows %d", len(kept), len(want.names))
				}
				for i, r := range kept {
					if r.Name != want.names[i] {
						t.Errorf("row %d = %q, pprof %q", i, r.Name, want.names[i])
					}
				}
				trimmed := mustTop(t, p, si).Trimmed(DefaultNodeFraction)
				if len(trimmed.Rows) != len(kept) || trimmed.Dropped != want.dropped || trimmed.Dropped > 0 && trimmed.DroppedCutoff != want.cutoff {
					t.Errorf("Trimmed: %d rows, %d dropped (cum <= %d); pprof %d, %d (cum <= %d)", len(trimmed.Rows), trimmed.Dropped, trimmed.DroppedCutoff, len(want.names), want.dropped, want.cutoff)
				}
				compareMarks(t, mustMarks(t, p, si, DefaultNodeFraction), want.marks)
				all := runPprofTopText(t, st.Unit, "-nodefraction=0", "-sample_index="+strconv.Itoa(si), path)
				compareMarks(t, mustMarks(t, p, si, 0), all.marks)
			})
		}
	}
}

// mustMarks is p.InlineMarks with -edgefraction's default, failing the test
// on an error.
func mustMarks(t *testing.T, p *Profile, si int, nodeFraction float64) map[string]string {
	t.Helper()
	marks, err := p.InlineMarks(si, nodeFraction, DefaultEdgeFraction)
	if err != nil {
		t.Fatal(err)
	}
	return marks
}

func compareMarks(t *testing.T, got, want map[string]string) {
	t.Helper()
	for name, m := range want {
		if got[name] != m {
			t.Errorf("%s: mark %q, pprof %q", name, got[name], m)
		}
	}
	for name, m := range got {
		if want[name] == "" {
			t.Errorf("%s: mark %q, pprof none", name, m)
		}
	}
}

// TestPercentage pins pprof's percentage format (measurement.Percentage).
func TestPercentage(t *testing.T) {
	for _, tc := range []struct {
		v, total int64
		want     string
	}{
		{0, 0, "    0%"},
		{0, 10, "    0%"},
		{15, 100000, "0.015%"},
		{1, 1000, "  0.1%"},
		{-1, 1000, "  0.1%"},
		{99, 10000, " 0.99%"},
		{1, 100, " 1.00%"},
		{1, 3, "33.33%"},
		{9995, 10000, "  100%"},
		{10005, 10000, "  100%"},
		{9994, 10000, "99.94%"},
		{3, 2, "150.00%"},
	} {
		if got := Percentage(tc.v, tc.total); got != tc.want {
			t.Errorf("Percentage(%d, %d) = %q, want %q", tc.v, tc.total, got, tc.want)
		}
	}
}

// TestScaledLabel pins pprof's value format (measurement.ScaledLabel) and the
// output unit it chooses by default (report.selectOutputUnit).
func TestScaledLabel(t *testing.T) {
	for _, tc := range []struct {
		v        int64
		from, to string
		want     string
	}{
		{2621706, "bytes", "minimum", "2.50MB"},
		{2621706, "bytes", "kB", "2560.26kB"},
		{40000000, "nanoseconds", "s", "0.04s"},
		{40000000, "nanoseconds", "minimum", "40ms"},
		{37, "count", "minimum", "37"},
		{0, "bytes", "MB", "0"},
		{-1536, "bytes", "minimum", "-1.50kB"},
		{5, "μs", "minimum", "5"}, // the Go toolchain's pprof does not recognise "μs": no unit
		{90 * 60 * 1e9, "nanoseconds", "auto", "1.50hrs"},
	} {
		if got := ScaledLabel(tc.v, tc.from, tc.to); got != tc.want {
			t.Errorf("ScaledLabel(%d, %q, %q) = %q, want %q", tc.v, tc.from, tc.to, got, tc.want)
		}
	}
	for _, tc := range []struct {
		unit, sampleUnit string
		min, total       int64
		want             string
	}{
		{"minimum", "bytes", 512, 1 << 30, "kB"}, // 100 × the smallest
		{"minimum", "bytes", 2 << 20, 3 << 20, "MB"},
		{"minimum", "count", 1, 10, "count"},
		{"minimum", "nanoseconds", 0, 5e9, "s"},
		{"kB", "bytes", 1, 2, "kB"},
	} {
		if got := OutputUnit(tc.unit, tc.sampleUnit, tc.min, tc.total); got != tc.want {
			t.Errorf("OutputUnit(%q, %q, %d, %d) = %q, want %q", tc.unit, tc.sampleUnit, tc.min, tc.total, got, tc.want)
		}
	}
}

// TestWriteTopErrors checks the refusals of the text report.
func TestWriteTopErrors(t *testing.T) {
	if _, err := Open(Reader(bytes.NewReader(nil)), Options{}); err == nil {
		t.Error("an empty file loaded")
	}
	if _, err := Open(Reader(strings.NewReader("not a profile at all\n")), Options{}); err == nil {
		t.Error("text loaded as a profile")
	}
	for _, path := range fixturesGlob(t, "pprof")[:2] {
		p, err := Open(File(path), Options{})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := p.WriteTop(&buf, TextOptions{SampleIndex: 99}); err == nil {
			t.Error("sample index 99 accepted")
		}
		p.Close()
	}
}
