package pprof

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/hostile"
)

// diffPairs are the fixture pairs checked against pprof's -diff_base.
var diffPairs = [][2]string{
	{"parca-self-heap-t0-1644509272.pb.gz", "parca-self-heap-t6-1644509290.pb.gz"},
	{"parca-self-heap-t6-1644509290.pb.gz", "parca-self-heap-t9-1644509299.pb.gz"},
	{"parca-self-heap-t0-1644509272.pb.gz", "parca-self-heap-t9-1644509299.pb.gz"},
	{"goprofnotes-goroutine-snap1-debug0.pb.gz", "goprofnotes-goroutine-snap2-debug0.pb.gz"},
	{"flameshow-heap.pb.gz", "erigon-integration-heap.pb.gz"},
}

// TestDiffMatchesPprof compares leakui's diff with
// `go tool pprof -top -diff_base=BASE TARGET`, every row, every sample type.
func TestDiffMatchesPprof(t *testing.T) {
	for _, pair := range diffPairs {
		basePath, targetPath := fixtures.Path(t, "pprof", pair[0]), fixtures.Path(t, "pprof", pair[1])
		base, target := loadFile(t, basePath), loadFile(t, targetPath)
		for si, st := range target.SampleTypes() {
			t.Run(fmt.Sprintf("%s→%s/%s", pair[0], pair[1], st.Type), func(t *testing.T) {
				t.Parallel()
				want := runPprofTop(t, st.Unit, "-sample_index="+strconv.Itoa(si), "-diff_base="+basePath, targetPath)
				got, err := Diff(base, target, si)
				if err != nil {
					t.Fatal(err)
				}
				rows := make([]TopRow, len(got.Rows))
				for i, r := range got.Rows {
					rows[i] = r.top()
					if r.Flat != r.TargetFlat-r.BaseFlat || r.Cum != r.TargetCum-r.BaseCum {
						t.Fatalf("row %+v is not target − base", r)
					}
				}
				compareTop(t, TopResult{Total: got.Total, Rows: rows}, want, len(want.Rows))
			})
		}
	}
}

func TestDiffRefusesDifferentTypes(t *testing.T) {
	heap := loadFile(t, fixtures.Path(t, "pprof", "flameshow-heap.pb.gz"))
	cpu := loadFile(t, fixtures.Path(t, "pprof", "flameshow-cpu-10s.pb.gz"))
	if _, err := Diff(heap, cpu, 0); !isErr(err, analyze.ErrMismatch) {
		t.Fatalf("heap vs cpu: %v, want ErrMismatch", err)
	}
}

// TestFilterMatchesPprof compares filtered top tables with pprof's -focus, -ignore,
// -hide and -show on real profiles.
func TestFilterMatchesPprof(t *testing.T) {
	for _, tc := range []struct {
		file                      string
		focus, ignore, hide, show string
	}{
		{"parca-self-heap-t9-1644509299.pb.gz", "badger", "", "", ""},
		{"parca-self-heap-t9-1644509299.pb.gz", "", "runtime", "", ""},
		{"parca-self-heap-t9-1644509299.pb.gz", "", "", "^runtime\\.", ""},
		{"parca-self-heap-t9-1644509299.pb.gz", "", "", "", "dgraph-io"},
		{"flameshow-cpu-10s.pb.gz", "syscall", "futex", "runtime", ""},
		{"erigon-integration-heap.pb.gz", "bloomfilter|mdbx", "", "", "erigon"},
		{"google-pprof-cppbench-legacy-text-heapz_v2.heap", "", "libc", "", ""},
		{"goprofnotes-goroutine-snap2-debug0.pb.gz", "net/http", "", "gopark", ""},
		{"flameshow-heap.pb.gz", "\\.go$", "", "", ""}, // matches file names, not function names
	} {
		name := fmt.Sprintf("%s/f=%s,i=%s,h=%s,s=%s", tc.file, tc.focus, tc.ignore, tc.hide, tc.show)
		path := fixtures.Path(t, "pprof", tc.file)
		p := loadFile(t, path)
		t.Run(filepath.Base(name), func(t *testing.T) {
			t.Parallel()
			f, err := CompileFilter(tc.focus, tc.ignore, tc.hide, tc.show)
			if err != nil {
				t.Fatal(err)
			}
			fp, m, err := p.Filter(f, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Unmatched(m)) > 0 {
				t.Fatalf("options %v matched nothing; choose filters that do", f.Unmatched(m))
			}
			args := []string{}
			for _, o := range [][2]string{{"focus", tc.focus}, {"ignore", tc.ignore}, {"hide", tc.hide}, {"show", tc.show}} {
				if o[1] != "" {
					args = append(args, "-"+o[0]+"="+o[1])
				}
			}
			si := p.DefaultSampleIndex()
			want := runPprofTop(t, p.SampleTypes()[si].Unit, append(args, path)...)
			compareTop(t, mustTop(t, fp, si), want, len(want.Rows))
		})
	}
}

func TestFilterReportsNoMatch(t *testing.T) {
	p := loadFile(t, fixtures.Path(t, "pprof", "flameshow-heap.pb.gz"))
	f, err := CompileFilter("no_such_function_anywhere", "", "nor_this", "")
	if err != nil {
		t.Fatal(err)
	}
	fp, m, err := p.Filter(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Unmatched(m); len(got) != 2 || got[0] != "focus" || got[1] != "hide" {
		t.Errorf("unmatched = %v, want [focus hide]", got)
	}
	if fp.Samples() != 0 {
		t.Errorf("a focus that matches nothing kept %d samples", fp.Samples())
	}
	if p.Samples() == 0 {
		t.Error("filtering changed the original profile")
	}
	if _, err := CompileFilter("(", "", "", ""); !isErr(err, analyze.ErrInvalidParameter) {
		t.Errorf("invalid regexp: %v", err)
	}
}

func TestDiffByCum(t *testing.T) {
	base := loadFile(t, fixtures.Path(t, "pprof", "goprofnotes-goroutine-snap1-debug0.pb.gz"))
	target := loadFile(t, fixtures.Path(t, "pprof", "goprofnotes-goroutine-snap2-debug0.pb.gz"))
	d, err := Diff(base, target, 0)
	if err != nil {
		t.Fatal(err)
	}
	byCum := d.ByCum()
	if len(byCum.Rows) != len(d.Rows) || byCum.Total != d.Total {
		t.Fatalf("ByCum changed the rows: %d vs %d", len(byCum.Rows), len(d.Rows))
	}
	for i := 1; i < len(byCum.Rows); i++ {
		if abs64(byCum.Rows[i].Cum) > abs64(byCum.Rows[i-1].Cum) {
			t.Fatalf("row %d (%+v) is larger than row %d", i, byCum.Rows[i], i-1)
		}
	}
	if d.Rows[0] == byCum.Rows[0] && abs64(d.Rows[0].Cum) < abs64(byCum.Rows[0].Cum) {
		t.Error("the original diff was reordered in place")
	}
}

// TestTagFilterMatchesPprof compares the top tables of profiles filtered by
// label (Filter with TagFocus and TagIgnore, which pprof's parser applies)
// with pprof's -tagfocus and -tagignore on the labelled fixtures.
func TestTagFilterMatchesPprof(t *testing.T) {
	for _, tc := range []struct{ file, tagFocus, tagIgnore, focus string }{
		{"parca-self-heap-t9-1644509299.pb.gz", "1mb:", "", ""},
		{"parca-self-heap-t9-1644509299.pb.gz", "bytes=:64kb", "96b", "."},
		{"flameshow-heap.pb.gz", "", "16b:128b", ""},
		{"goprofnotes-goroutine-snap1-debug0.pb.gz", "test_label=test_value", "", ""},
		{"goprofnotes-goroutine-snap2-debug0.pb.gz", "", "test_label:test", ""},
		{"google-pprof-cppbench-legacy-text-heapz_v2.heap", "20kb:40kb", "", ""},
	} {
		name := fmt.Sprintf("%s/tf=%s,ti=%s,f=%s", tc.file, tc.tagFocus, tc.tagIgnore, tc.focus)
		path := fixtures.Path(t, "pprof", tc.file)
		t.Run(filepath.Base(name), func(t *testing.T) {
			t.Parallel()
			p, err := Open(File(path), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			f, err := CompileFilter(tc.focus, "", "", "")
			if err != nil {
				t.Fatal(err)
			}
			if f.TagFocus, err = CompileTagFilter("tagfocus", tc.tagFocus); err != nil {
				t.Fatal(err)
			}
			if f.TagIgnore, err = CompileTagFilter("tagignore", tc.tagIgnore); err != nil {
				t.Fatal(err)
			}
			fp, m, err := p.Filter(f, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Unmatched(m)) > 0 {
				t.Fatalf("options %v matched nothing; choose filters that do", f.Unmatched(m))
			}
			args := []string{}
			for _, o := range [][2]string{{"focus", tc.focus}, {"tagfocus", tc.tagFocus}, {"tagignore", tc.tagIgnore}} {
				if o[1] != "" {
					args = append(args, "-"+o[0]+"="+o[1])
				}
			}
			si := p.DefaultSampleIndex()
			want := runPprofTop(t, p.SampleTypes()[si].Unit, append(args, path)...)
			got := mustTop(t, fp, si)
			compareTop(t, got, want, len(want.Rows))
			if whole := mustTop(t, p, si); got.Shown == whole.Shown || got.Total != whole.Total {
				t.Errorf("shown %d of %d; the whole profile %d of %d: the filter kept everything or moved the total", got.Shown, got.Total, whole.Shown, whole.Total)
			}
		})
	}
}

// TestMismatchNamesBothUnits: profiles whose sample types differ only in
// their units (microseconds against nanoseconds) are refused by a diff, a
// differential flame graph and a series with a message that names both units, not the same types twice.
func TestMismatchNamesBothUnits(t *testing.T) {
	open := func(unit string) *Profile {
		hp := hostile.Profile{SampleTypes: [][2]string{{"samples", "count"}, {"cpu", unit}}}
		hp.Samples = []hostile.Sample{{Stack: []string{"main.work", "main.main"}, Values: []int64{1, 10}}}
		p, err := Open(Reader(bytes.NewReader(hp.Encode())), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	us, ns := open("microseconds"), open("nanoseconds")
	_, err := Diff(us, ns, 1)
	if !isErr(err, analyze.ErrMismatch) || !strings.Contains(err.Error(), "cpu (microseconds)") || !strings.Contains(err.Error(), "cpu (nanoseconds)") {
		t.Errorf("diff: %v", err)
	}
	_, err = Series([]Snapshot{{"a", us}, {"b", ns}, {"c", us}}, series.Options{})
	if !isErr(err, analyze.ErrMismatch) || !strings.Contains(err.Error(), "cpu (microseconds)") || !strings.Contains(err.Error(), "cpu (nanoseconds)") {
		t.Errorf("series: %v", err)
	}
	_, err = DiffFlame(us, ns, 1, 0, nil)
	if !isErr(err, analyze.ErrMismatch) || !strings.Contains(err.Error(), "cpu (microseconds)") || !strings.Contains(err.Error(), "cpu (nanoseconds)") {
		t.Errorf("diff flame graph: %v", err)
	}
	if _, err := Diff(us, open("microseconds"), 1); err != nil {
		t.Errorf("one unit: %v", err)
	}
}
