package web

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
)

// TestDiffPageHonoursPprofTrim: the page of a diff of two profiles, asked
// for pprof's view (trim=pprof), lists the rows its JSON lists, in order,
// and says how many pprof's default -top -diff_base drops, the JSON's
// dropped (DiffResult.Trimmed is anchored to go tool pprof in
// analyze/pprof), with a link back to every row; without trim it lists every
// row, says how many pprof would drop, and links to pprof's view.
func TestDiffPageHonoursPprofTrim(t *testing.T) {
	ts := newTestServer(t, Config{})
	base, target := fixture(t, "pprof", "flameshow-heap.pb.gz"), fixture(t, "pprof", "erigon-integration-heap.pb.gz")
	up := ts.mustUpload(t, nil, base, target)
	var diff struct {
		Diff struct{ Result pprof.DiffResult }
	}
	code, _, body := ts.get(t, "/api/reports/"+up.ReportID+"?trim=pprof&n=all")
	if code != 200 || json.Unmarshal(body, &diff) != nil {
		t.Fatalf("the diff's JSON: %d %s", code, body)
	}
	want := diff.Diff.Result
	if want.Dropped == 0 {
		t.Fatal("pprof drops nothing from this diff; choose another pair")
	}
	page := func(query string) *goquery.Document {
		t.Helper()
		code, _, body := ts.get(t, "/r/"+up.ReportID+query)
		if code != 200 {
			t.Fatalf("/r/%s%s: %d %s", up.ReportID, query, code, body)
		}
		d, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	names := func(d *goquery.Document) []string {
		var out []string
		d.Find(tid("diff-row")).Each(func(_ int, s *goquery.Selection) {
			out = append(out, strings.TrimSpace(s.Find(tid("name")).Text()))
		})
		return out
	}

	trimmed := page("?trim=pprof&n=all")
	got := names(trimmed)
	var wantNames []string
	for _, r := range want.Rows {
		wantNames = append(wantNames, r.Name)
	}
	if strings.Join(got, "\n") != strings.Join(wantNames, "\n") {
		t.Errorf("trim=pprof: the page lists %d rows, the JSON %d", len(got), len(wantNames))
	}
	dropped := trimmed.Find(tid("diff-dropped"))
	wantText := "As pprof's default -top -diff_base: " + strconv.Itoa(want.Dropped) + " functions with cum ≤ " + analyze.FormatValue(want.DroppedCutoff, want.Unit) + " are dropped."
	if dropped.AttrOr("data-dropped", "") != strconv.Itoa(want.Dropped) || !strings.Contains(strings.Join(strings.Fields(dropped.Text()), " "), wantText) {
		t.Errorf("trim=pprof: the page says %q (data-dropped %s), want %q", strings.Join(strings.Fields(dropped.Text()), " "), dropped.AttrOr("data-dropped", ""), wantText)
	}
	if href := dropped.Find(tid("diff-toggle")).AttrOr("href", ""); href != "/r/"+up.ReportID {
		t.Errorf("trim=pprof: the toggle links %q, want the same view without trim", href)
	}

	whole := page("?n=all")
	if n := len(names(whole)); n != len(want.Rows)+want.Dropped {
		t.Errorf("without trim: the page lists %d rows, want the %d kept and %d dropped", n, len(want.Rows), want.Dropped)
	}
	dropped = whole.Find(tid("diff-dropped"))
	if dropped.AttrOr("data-dropped", "") != strconv.Itoa(want.Dropped) || !strings.Contains(dropped.Text(), "would drop "+strconv.Itoa(want.Dropped)+" functions") ||
		!strings.Contains(dropped.Find(tid("diff-toggle")).AttrOr("href", ""), "trim=pprof") {
		t.Errorf("without trim: the page says %q, want pprof would drop %d with a link to its view", strings.Join(strings.Fields(dropped.Text()), " "), want.Dropped)
	}
}
