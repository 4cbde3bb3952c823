package web

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/leakui/leakui/web/page"
)

// TestProfileLabelsView: a labelled profile's labels view lists each key's
// values with their sums and shares as `go tool pprof -tags` prints them
// ("test_label: Total 7 of 10 (70.00%)", "7 (70.00%): test_value"), in the page
// and the JSON, and a value's link opens the top table of its samples alone.
func TestProfileLabelsView(t *testing.T) {
	ts := newTestServer(t, Config{UploadsPerMinute: -1})
	up := ts.mustUpload(t, nil, fixture(t, "pprof", "goprofnotes-goroutine-snap1-debug0.pb.gz"))
	path := page.ReportURL(up.ReportID)

	pg := goroutinePage(t, ts, path+"?view=labels")
	keys := pg.Find("[data-testid=label-key]")
	values := pg.Find("[data-testid=label-value]")
	if keys.Length() != 1 || !strings.HasPrefix(strings.TrimSpace(keys.Text()), "test_label 7 (70.0%)") || values.Length() != 1 ||
		values.Find("[data-testid=label-value-name]").Text() != "test_value" || values.Find("[data-testid=label-value-total]").Text() != "7" {
		t.Fatalf("labels view: keys %q, %d values %q", keys.Text(), values.Length(), values.Text())
	}
	link, _ := values.Find("[data-testid=label-filter]").Attr("href")
	top := goroutinePage(t, ts, link)
	if total, shown := top.Find("[data-testid=top-total]").Text(), top.Find("[data-testid=top-shown]").Text(); total != "10" || shown != "7" {
		t.Errorf("the value's link %s: total %q, the filter keeps %q; want 10 and 7", link, total, shown)
	}

	code, _, raw := ts.get(t, "/api/reports/"+up.ReportID+"?view=labels")
	var doc struct {
		Analysis struct {
			Total int64
			Keys  []struct {
				Key    string
				Total  int64
				Share  float64
				Values []struct {
					Value string
					Total int64
				}
			}
		}
	}
	if err := json.Unmarshal(raw, &doc); code != 200 || err != nil {
		t.Fatalf("JSON: %d %v %s", code, err, raw)
	}
	a := doc.Analysis
	if a.Total != 10 || len(a.Keys) != 1 || a.Keys[0].Key != "test_label" || a.Keys[0].Total != 7 || a.Keys[0].Share != 0.7 ||
		len(a.Keys[0].Values) != 1 || a.Keys[0].Values[0].Value != "test_value" || a.Keys[0].Values[0].Total != 7 {
		t.Errorf("JSON labels: %s", raw)
	}
	// A tag filter that is not pprof's is refused.
	if code, _, _ := ts.get(t, path+"?tf=test_label=("); code != 400 {
		t.Errorf("an invalid tag filter: %d, want 400", code)
	}
}
