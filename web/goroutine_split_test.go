package web

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// splitDump is one stack started by one `go` statement from goroutines 1 (twice)
// and 7 (once).
const splitDump = `goroutine 10 [chan receive]:
main.worker()
	/src/main.go:10 +0x19
created by main.start in goroutine 1
	/src/main.go:20 +0x1b

goroutine 11 [chan receive]:
main.worker()
	/src/main.go:10 +0x19
created by main.start in goroutine 7
	/src/main.go:20 +0x1b

goroutine 12 [chan receive]:
main.worker()
	/src/main.go:10 +0x19
created by main.start in goroutine 1
	/src/main.go:20 +0x1b
`

// TestGoroutineSplitByCreator checks that the goroutine page says in one line that
// the creating goroutine does not split a group, links to the split, and that
// split=creator (page and JSON) groups as panicparse does; the dump proves no leak,
// so the page says how to get the runtime's proof.
func TestGoroutineSplitByCreator(t *testing.T) {
	ts := newTestServer(t, Config{})
	status, up, raw := ts.upload(t, file{name: "split.txt", data: []byte(splitDump)})
	if status != 201 {
		t.Fatalf("%d %s", status, raw)
	}
	counts := func(pg *goquery.Document) []string {
		var c []string
		pg.Find("[data-testid=goroutine-group]").Each(func(_ int, s *goquery.Selection) { c = append(c, s.AttrOr("data-count", "")) })
		return c
	}
	pg := goroutinePage(t, ts, up.ReportURL)
	if c := counts(pg); strings.Join(c, ",") != "3" {
		t.Errorf("by stack: group counts %v, want [3]", c)
	}
	note := pg.Find("[data-testid=creator-note]")
	link := note.Find("[data-testid=split-creator]").AttrOr("href", "")
	if !strings.Contains(note.Text(), "panicparse") || !strings.Contains(link, "split=creator") {
		t.Errorf("creator note %q, link %q", note.Text(), link)
	}
	if hint := pg.Find("[data-testid=leak-hint]").Text(); !strings.Contains(hint, "GOEXPERIMENT=goroutineleakprofile") || !strings.Contains(hint, "/debug/pprof/goroutineleak") {
		t.Errorf("leak hint %q", hint)
	}
	pg = goroutinePage(t, ts, link)
	if c := counts(pg); strings.Join(c, ",") != "2,1" {
		t.Errorf("split by creator: group counts %v, want [2 1]", c)
	}
	if back := pg.Find("[data-testid=split-creator]").AttrOr("href", ""); strings.Contains(back, "split=") {
		t.Errorf("the split page links back to %q", back)
	}
	code, _, body := ts.get(t, "/api/reports/"+up.ReportID+"?split=creator")
	var doc struct {
		Analysis struct {
			SplitBy string `json:"split_by"`
			Groups  []struct {
				Count      int     `json:"count"`
				CreatorIDs []int64 `json:"creator_ids"`
			} `json:"groups"`
		} `json:"analysis"`
	}
	if err := json.Unmarshal(body, &doc); code != 200 || err != nil {
		t.Fatalf("JSON: %d %v %s", code, err, body)
	}
	var got []string
	for _, g := range doc.Analysis.Groups {
		got = append(got, strconv.Itoa(g.Count)+"@"+strconv.FormatInt(g.CreatorIDs[0], 10))
	}
	if doc.Analysis.SplitBy != "creator" || strings.Join(got, ",") != "2@1,1@7" {
		t.Errorf("JSON split_by %q groups %v, want creator [2@1 1@7]", doc.Analysis.SplitBy, got)
	}
	_, _, md := ts.get(t, up.ReportURL+".md?split=creator")
	if !strings.Contains(string(md), "Groups split by the goroutine that created them.") || !strings.Contains(string(md), "GOEXPERIMENT=goroutineleakprofile") {
		t.Errorf("split markdown lacks the split or the leak hint:\n%s", md)
	}
	if code, _, _ := ts.get(t, "/api/reports/"+up.ReportID+"?split=bogus"); code != 400 {
		t.Errorf("split=bogus: %d, want 400", code)
	}
}
