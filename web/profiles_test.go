package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
)

func reportDoc(t *testing.T, ts *testServer, path string) kind.ReportJSON {
	t.Helper()
	code, _, body := ts.get(t, path)
	var doc kind.ReportJSON
	if code != 200 || json.Unmarshal(body, &doc) != nil {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	return doc
}

func TestFiltersInTheURL(t *testing.T) {
	ts := newTestServer(t, Config{})
	heap := fixture(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz")
	_, up, _ := ts.upload(t, heap)
	p := loadProfileBytes(t, heap.data)
	f, _ := pprof.CompileFilter("badger", "", "", "")
	fp, _, err := p.Filter(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := topOf(t, fp, p.DefaultSampleIndex())

	doc := reportDoc(t, ts, "/api/reports/"+up.ReportID+"?f=badger&n=all")
	got := doc.Profile.Top
	if got.Total != want.Total || got.Shown != want.Shown || len(got.Rows) != len(want.Rows) || got.Rows[0] != want.Rows[0] {
		t.Errorf("focus=badger: total %d shown %d rows %d; want %d %d %d", got.Total, got.Shown, len(got.Rows), want.Total, want.Shown, len(want.Rows))
	}
	if got.Shown >= got.Total {
		t.Error("the filter kept everything; choose one that does not")
	}

	code, _, pg := ts.get(t, "/r/"+up.ReportID+"?f=no_such_frame_anywhere")
	if code != 200 || !bytes.Contains(pg, []byte("matched nothing")) {
		t.Errorf("a filter matching nothing: %d, page says %v", code, bytes.Contains(pg, []byte("matched nothing")))
	}
	code, _, body := ts.get(t, "/api/reports/"+up.ReportID+"?h=(unclosed")
	if code != 400 || !bytes.Contains(body, []byte(`hide regexp \"(unclosed\"`)) {
		t.Errorf("invalid regexp: %d %s", code, body)
	}
}

func TestFlameView(t *testing.T) {
	ts := newTestServer(t, Config{})
	heap := fixture(t, "pprof", "flameshow-heap.pb.gz")
	_, up, _ := ts.upload(t, heap)
	code, _, pg := ts.get(t, "/r/"+up.ReportID+"?view=flame")
	if code != 200 || !bytes.Contains(pg, []byte(`data-testid="flame-svg"`)) || !bytes.Contains(pg, []byte(`id="flame-data"`)) {
		t.Fatalf("flame page: %d", code)
	}
	doc := reportDoc(t, ts, "/api/reports/"+up.ReportID+"?view=flame")
	p := loadProfileBytes(t, heap.data)
	if doc.Flame == nil || doc.Flame.Total != topOf(t, p, p.DefaultSampleIndex()).Total {
		t.Errorf("flame JSON total %+v", doc.Flame)
	}
	if code, _, _ := ts.get(t, "/r/"+up.ReportID+"?view=pie"); code != 400 {
		t.Errorf("view=pie: %d", code)
	}
}

func TestUploadTwoProfilesMakesADiff(t *testing.T) {
	ts := newTestServer(t, Config{})
	t0 := fixture(t, "pprof", "parca-self-heap-t0-1644509272.pb.gz")
	t9 := fixture(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz")
	status, up, raw := ts.upload(t, t9, t0) // out of order on purpose
	if status != 201 {
		t.Fatalf("%d %s", status, raw)
	}
	doc := reportDoc(t, ts, "/api/reports/"+up.ReportID)
	if doc.Kind != "diff" || doc.Diff == nil || doc.Artifacts[0].Name != t0.name || doc.Artifacts[1].Name != t9.name {
		t.Fatalf("kind %s, artifacts %+v: want a diff with the older profile as the base", doc.Kind, doc.Artifacts)
	}
	base, target := loadProfileBytes(t, t0.data), loadProfileBytes(t, t9.data)
	want, _ := pprof.Diff(base, target, target.DefaultSampleIndex())
	got := doc.Diff.Result
	if got.BaseTotal != want.BaseTotal || got.TargetTotal != want.TargetTotal || got.Rows[0] != want.Rows[0] {
		t.Errorf("diff %d→%d first %+v; want %d→%d first %+v", got.BaseTotal, got.TargetTotal, got.Rows[0], want.BaseTotal, want.TargetTotal, want.Rows[0])
	}
	// The same files as single profiles, and the diff's flame graph.
	single := reportDoc(t, ts, "/api/reports/"+up.ReportID+"?mode=profile&file=1")
	if single.Profile == nil || single.Profile.Top.Total != topOf(t, target, target.DefaultSampleIndex()).Total {
		t.Error("mode=profile&file=1 does not show the target")
	}
	fl := reportDoc(t, ts, "/api/reports/"+up.ReportID+"?view=flame")
	if fl.Flame == nil || !fl.Flame.Diff || fl.Flame.BaseTotal != want.BaseTotal {
		t.Error("the diff's flame graph is not differential")
	}
	code, _, md := ts.get(t, up.ReportURL+".md")
	if code != 200 || !bytes.Contains(md, []byte(want.Rows[0].Name)) || !bytes.Contains(md, []byte("→")) {
		t.Errorf("diff markdown: %d\n%s", code, md)
	}
	code, _, pg := ts.get(t, up.ReportURL)
	if code != 200 || !bytes.Contains(pg, []byte(`data-testid="diff-table"`)) {
		t.Errorf("diff page: %d", code)
	}
}

func TestUploadMixedTypesIsRefused(t *testing.T) {
	ts := newTestServer(t, Config{})
	status, _, raw := ts.upload(t, fixture(t, "pprof", "flameshow-heap.pb.gz"), fixture(t, "pprof", "flameshow-cpu-10s.pb.gz"))
	if status != 422 || !strings.Contains(raw, "upload profiles of one type together") {
		t.Errorf("%d %s", status, raw)
	}
	if a, c, r, _ := ts.db.Counts(t.Context()); a+c+r != 0 {
		t.Error("a refused upload stored something")
	}
}

func TestCompareWithAnEarlierReport(t *testing.T) {
	ts := newTestServer(t, Config{})
	_, base, _ := ts.upload(t, fixture(t, "pprof", "parca-self-heap-t0-1644509272.pb.gz"))
	_, target, _ := ts.upload(t, fixture(t, "pprof", "parca-self-heap-t6-1644509290.pb.gz"))
	_, cpu, _ := ts.upload(t, fixture(t, "pprof", "flameshow-cpu-10s.pb.gz"))
	_, _, pg := ts.get(t, target.ReportURL)
	if !bytes.Contains(pg, []byte(`value="`+base.ReportID+`"`)) || bytes.Contains(pg, []byte(`value="`+cpu.ReportID+`"`)) {
		t.Error("the compare form should offer the heap report and not the CPU one")
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.PostForm(ts.URL+target.ReportURL+"/compare", url.Values{"base": {base.ReportID}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != 303 || !strings.HasPrefix(loc, "/r/") {
		t.Fatalf("compare: %d %q", resp.StatusCode, loc)
	}
	doc := reportDoc(t, ts, "/api"+strings.Replace(loc, "/r/", "/reports/", 1))
	if doc.Kind != "diff" || doc.Diff == nil || doc.Diff.Base != base.Artifacts[0].SHA256 || doc.Diff.Target != target.Artifacts[0].SHA256 {
		t.Errorf("compare made %+v", doc)
	}
	if a, _, r, _ := ts.db.Counts(t.Context()); a != 3 || r != 4 {
		t.Errorf("artifacts %d reports %d; the diff must reuse the stored files", a, r)
	}
	resp, err = client.PostForm(ts.URL+target.ReportURL+"/compare", url.Values{"base": {cpu.ReportID}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 422 {
		t.Errorf("heap vs cpu compare: %d", resp.StatusCode)
	}
}

// TestSeriesRateNote uploads the three Parca heap snapshots, 27 s apart: the
// series view's JSON and page say the rates are per snapshot, and no suspect or
// total carries a per-minute slope.
func TestSeriesRateNote(t *testing.T) {
	ts := newTestServer(t, Config{})
	var files []file
	for _, name := range []string{"parca-self-heap-t0-1644509272.pb.gz", "parca-self-heap-t6-1644509290.pb.gz", "parca-self-heap-t9-1644509299.pb.gz"} {
		files = append(files, fixture(t, "pprof", name))
	}
	up := ts.mustUpload(t, nil, files...)
	const note = "Rates: the snapshots span 27s, less than 1m0s: rates are per snapshot, not per minute."
	status, _, body := ts.get(t, page.ReportJSONURL(up.ReportID)+"?mode=series")
	if status != 200 || !strings.Contains(string(body), note) || strings.Contains(string(body), "slope_per_minute") {
		t.Errorf("JSON %d: want the note and no per-minute slope:\n%.2000s", status, body)
	}
	status, _, body = ts.get(t, page.ReportURL(up.ReportID)+"?mode=series")
	if status != 200 || !strings.Contains(string(body), "the snapshots span 27s") {
		t.Errorf("page %d lacks the rate note", status)
	}
}
