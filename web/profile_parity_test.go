package web

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/internal/hostile"
)

// TestJSONHonoursPprofTrim: the JSON twin of a top table and of a diff, asked
// for pprof's view (trim=pprof), holds the rows `go tool pprof -top` (and
// -diff_base) shows and says how many it dropped, as the page does
// (TopResult.PprofTrim and DiffResult.Trimmed are anchored to go tool pprof in
// analyze/pprof); without trim it holds every row.
func TestJSONHonoursPprofTrim(t *testing.T) {
	ts := newTestServer(t, Config{})
	heap := fixture(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz")
	p := loadProfileBytes(t, heap.data)
	si := p.DefaultSampleIndex()
	top := topOf(t, p, si)
	want := top.Trimmed(pprof.DefaultNodeFraction)
	if want.Dropped == 0 {
		t.Fatal("pprof drops nothing from this profile; choose another")
	}
	getJSON := func(path string, v any) {
		t.Helper()
		code, _, body := ts.get(t, path)
		if code != 200 {
			t.Fatalf("GET %s: %d %s", path, code, body)
		}
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
	}
	var single struct{ Profile struct{ Top pprof.TopResult } }
	up := ts.mustUpload(t, nil, heap)
	getJSON("/api/reports/"+up.ReportID+"?trim=pprof&n=all", &single)
	if got := single.Profile.Top; !slices.Equal(got.Rows, want.Rows) || got.Dropped != want.Dropped || got.DroppedCutoff != want.DroppedCutoff {
		t.Errorf("trim=pprof: %d rows, dropped %d (cum <= %d); pprof shows %d, drops %d (cum <= %d)",
			len(got.Rows), got.Dropped, got.DroppedCutoff, len(want.Rows), want.Dropped, want.DroppedCutoff)
	}
	var whole struct{ Profile struct{ Top pprof.TopResult } }
	getJSON("/api/reports/"+up.ReportID+"?n=all", &whole)
	if got := whole.Profile.Top; len(got.Rows) != len(top.Rows) || got.Dropped != 0 {
		t.Errorf("without trim: %d rows, dropped %d; want all %d", len(got.Rows), got.Dropped, len(top.Rows))
	}

	base, target := fixture(t, "pprof", "flameshow-heap.pb.gz"), fixture(t, "pprof", "erigon-integration-heap.pb.gz")
	tp := loadProfileBytes(t, target.data)
	d, err := pprof.Diff(loadProfileBytes(t, base.data), tp, tp.DefaultSampleIndex())
	if err != nil {
		t.Fatal(err)
	}
	wantDiff := d.Trimmed(pprof.DefaultNodeFraction)
	if wantDiff.Dropped == 0 {
		t.Fatal("pprof drops nothing from this diff; choose another pair")
	}
	var diff struct {
		Diff struct{ Result pprof.DiffResult }
	}
	upd := ts.mustUpload(t, nil, base, target)
	getJSON("/api/reports/"+upd.ReportID+"?trim=pprof&n=all", &diff)
	if got := diff.Diff.Result; !slices.Equal(got.Rows, wantDiff.Rows) || got.Dropped != wantDiff.Dropped {
		t.Errorf("diff trim=pprof: %d rows, dropped %d; pprof shows %d, drops %d", len(got.Rows), got.Dropped, len(wantDiff.Rows), wantDiff.Dropped)
	}
	var wholeDiff struct {
		Diff struct{ Result pprof.DiffResult }
	}
	getJSON("/api/reports/"+upd.ReportID+"?n=all", &wholeDiff)
	if got := wholeDiff.Diff.Result; len(got.Rows) != len(d.Rows) {
		t.Errorf("diff without trim: %d rows, want all %d", len(got.Rows), len(d.Rows))
	}
}

// TestUploadRefusesMixedUnitsNamingBoth: two CPU profiles whose sample types
// differ only in their units (microseconds against nanoseconds) are refused
// with a message naming both units, never the same types twice.
func TestUploadRefusesMixedUnitsNamingBoth(t *testing.T) {
	ts := newTestServer(t, Config{})
	cpu := func(name, unit string) file {
		hp := hostile.Profile{SampleTypes: [][2]string{{"samples", "count"}, {"cpu", unit}}}
		hp.Samples = []hostile.Sample{{Stack: []string{"main.work", "main.main"}, Values: []int64{1, 10}}}
		return file{name: name, data: hp.Encode()}
	}
	code, _, raw := ts.upload(t, cpu("us.pb", "microseconds"), cpu("ns.pb", "nanoseconds"))
	if code != 422 || !strings.Contains(raw, "cpu (microseconds)") || !strings.Contains(raw, "cpu (nanoseconds)") {
		t.Errorf("upload of µs and ns profiles: %d %s", code, raw)
	}
}
