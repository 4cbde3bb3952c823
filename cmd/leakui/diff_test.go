package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/internal/fixtures"
)

func TestDiffJSONShape(t *testing.T) {
	base := fixtures.Path(t, "pprof", "parca-self-heap-t0-1644509272.pb.gz")
	target := fixtures.Path(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz")
	code, out, errs := runCLI(t, "diff", "-json", "-n", "5", base, target)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		SampleType string `json:"sample_type"`
		Total      int64  `json:"total"`
		Rows       []struct {
			Name                 string
			Flat, Cum            int64
			BaseFlat, TargetFlat int64 `json:"-"`
			BaseFlatJ            int64 `json:"base_flat"`
			TargetFlatJ          int64 `json:"target_flat"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	open := func(p string) *pprof.Profile {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		pr, err := pprof.Open(pprof.Reader(f), pprof.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return pr
	}
	tp := open(target)
	want, err := pprof.Diff(open(base), tp, tp.DefaultSampleIndex())
	if err != nil {
		t.Fatal(err)
	}
	if got.SampleType != "inuse_space" || got.Total != want.Total || len(got.Rows) != 5 {
		t.Fatalf("got %+v", got)
	}
	for i, r := range got.Rows {
		w := want.Rows[i]
		if r.Name != w.Name || r.Flat != w.Flat || r.Cum != w.Cum || r.BaseFlatJ != w.BaseFlat || r.TargetFlatJ != w.TargetFlat || r.Flat != r.TargetFlatJ-r.BaseFlatJ {
			t.Errorf("row %d = %+v, want %+v", i, r, w)
		}
	}
	code, _, errs = runCLI(t, "diff", base, fixtures.Path(t, "pprof", "flameshow-cpu-10s.pb.gz"))
	if code != 1 || !strings.Contains(errs, "compare profiles of one type") {
		t.Errorf("heap vs cpu: exit %d %s", code, errs)
	}
	if code, _, _ := runCLI(t, "diff", base); code != 2 {
		t.Errorf("one file: exit %d", code)
	}
}
