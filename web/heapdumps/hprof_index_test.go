package heapdumps_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/leakui/leakui/analyze/hprof"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web"
	"github.com/leakui/leakui/web/heapdumps"
	"github.com/leakui/leakui/web/internal/webtest"
	"github.com/leakui/leakui/web/page"
)

// heapDomFragment fetches the rows the page's expand button of node inserts,
// one row per object.
func heapDomFragment(t *testing.T, ts *webtest.Server, id, node string, level int) *goquery.Document {
	t.Helper()
	code, ct, body := ts.Get(t, heapdumps.DomURL(id)+"?node="+node+"&level="+strconv.Itoa(level)+"&fragment=1&group=none")
	if code != http.StatusOK || !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("fragment of node %s: %d %s %s", node, code, ct, body)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader("<ul>" + string(body) + "</ul>"))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// openStoredIndex opens a report's stored index as the endpoint does, for the
// test to compare against.
func openStoredIndex(t *testing.T, ts *webtest.Server, id string) *hprof.Index {
	t.Helper()
	b, err := ts.DB.OpenDerived(t.Context(), id, heapdumps.IndexName)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	x, err := hprof.OpenIndex(b, b.Size())
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestHeapDominatorsEndpoint pages the dominator tree of a real dump through
// /r/{id}/dominators (JSON, the page's fragments, the page of a node) and checks
// every page against the stored index's own Children and Path.
func TestHeapDominatorsEndpoint(t *testing.T) {
	ts := newTestServer(t, web.Config{})
	up := ts.MustUploadHeapDump(t, webtest.LeakShapeDump(t, false, 30, 4096))
	x := openStoredIndex(t, ts, up.ReportID)

	type page struct {
		Node     *hprof.Object  `json:"node"`
		Path     []hprof.Object `json:"path"`
		Offset   int            `json:"offset"`
		Total    int            `json:"total"`
		Children []hprof.Object `json:"children"`
		Next     string         `json:"next"`
	}
	getJSON := func(query string, accept bool) page {
		t.Helper()
		path := heapdumps.DomURL(up.ReportID) + ".json?" + query
		var header []string
		if accept {
			path, header = heapdumps.DomURL(up.ReportID)+"?"+query, []string{"Accept", "application/json"}
		}
		code, _, body := ts.Get(t, path, header...)
		if code != http.StatusOK {
			t.Fatalf("%s: %d %s", query, code, body)
		}
		var p page
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	same := func(what string, got, want []hprof.Object) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d objects, the index has %d", what, len(got), len(want))
		}
		for i := range want {
			if got[i].Ordinal != want[i].Ordinal || got[i].Retained != want[i].Retained || got[i].Class != want[i].Class || got[i].Dominated != want[i].Dominated {
				t.Errorf("%s[%d] = %+v, the index says %+v", what, i, got[i], want[i])
			}
		}
	}

	// The GC roots' children, page by page, to the end.
	var all []hprof.Object
	for offset, pages := 0, 0; ; pages++ {
		p := getJSON("node=root&offset="+strconv.Itoa(offset), pages%2 == 1)
		want, total, err := x.Children(hprof.IndexRoot, offset, heapdumps.DomPage)
		if err != nil {
			t.Fatal(err)
		}
		same("root page at "+strconv.Itoa(offset), p.Children, want)
		if p.Total != total || p.Offset != offset || len(p.Path) != 0 || p.Node != nil {
			t.Errorf("root page at %d: total %d offset %d path %d; the index has %d", offset, p.Total, p.Offset, len(p.Path), total)
		}
		all = append(all, p.Children...)
		if p.Next == "" {
			if offset+len(p.Children) != total || pages == 0 {
				t.Errorf("the pages end at %d of %d after %d pages", offset+len(p.Children), total, pages+1)
			}
			break
		}
		offset += len(p.Children)
	}
	for i := 1; i < len(all); i++ {
		if all[i].Retained > all[i-1].Retained {
			t.Fatalf("root child %d retains %d, more than the one before it (%d): not largest first", i, all[i].Retained, all[i-1].Retained)
		}
	}

	// A consumer thread: its children and its dominator chain.
	var thread hprof.Object
	for _, o := range all {
		if o.Class == "LeakShape$ConsumerThread" {
			thread = o
			break
		}
	}
	if thread.Dominated == 0 {
		t.Fatal("no consumer thread dominating objects at the top of the tree")
	}
	node := strconv.FormatUint(uint64(thread.Ordinal), 10)
	p := getJSON("node="+node, false)
	want, total, _ := x.Children(thread.Ordinal, 0, heapdumps.DomPage)
	same("the thread's children", p.Children, want)
	wantPath, _, _, _ := x.Chain(thread.Ordinal, heapdumps.ChainEnds)
	same("the thread's path", p.Path, wantPath)
	if p.Total != total || p.Node == nil || p.Node.Ordinal != thread.Ordinal {
		t.Errorf("thread page: total %d node %+v", p.Total, p.Node)
	}

	// The fragment of the root's second page is the same rows, with a link to the next.
	frag := heapDomFragment(t, ts, up.ReportID, "root", 0)
	rows := frag.Find(`[data-testid="dominator"]`)
	if rows.Length() != heapdumps.DomPage {
		t.Errorf("%d rows in the root's first fragment", rows.Length())
	}
	rows.Each(func(i int, s *goquery.Selection) {
		if s.AttrOr("data-node", "") != strconv.FormatUint(uint64(all[i].Ordinal), 10) {
			t.Errorf("fragment row %d is node %s, the index's is %d", i, s.AttrOr("data-node", ""), all[i].Ordinal)
		}
	})
	if more := frag.Find(`[data-testid="dominator-more"]`); len(all) > heapdumps.DomPage && more.AttrOr("data-offset", "") != strconv.Itoa(heapdumps.DomPage) {
		t.Errorf("the 'show more' link: %q", more.AttrOr("href", ""))
	}

	// The page of a node, without JavaScript: its chain and its children.
	doc, _ := ts.Page(t, heapdumps.DomURL(up.ReportID)+"?node="+node)
	if doc.Find(`[data-testid="chain-step"]`).Length() != len(wantPath) || doc.Find(`[data-testid="dominators"] > [data-testid="dominator"]`).Length() != len(want) {
		t.Errorf("node page: %d chain steps, %d rows", doc.Find(`[data-testid="chain-step"]`).Length(), doc.Find(`[data-testid="dominators"] > [data-testid="dominator"]`).Length())
	}

	// Bad requests.
	for _, c := range []struct {
		query string
		want  int
	}{{"node=abc", 400}, {"node=4294967295", 400}, {"node=root&offset=-1", 400}, {"node=99999999", 404}} {
		if code, _, body := ts.Get(t, heapdumps.DomURL(up.ReportID)+".json?"+c.query); code != c.want {
			t.Errorf("%s: %d %s, want %d", c.query, code, body, c.want)
		}
	}
}

// TestHeapDumpReportWithoutIndex stores a heap dump report as leakui made them
// before indexes were stored (its summary alone): its page still shows the
// levels of the dominator tree the summary keeps, and the endpoint says why it
// has nothing.
func TestHeapDumpReportWithoutIndex(t *testing.T) {
	ts := newTestServer(t, web.Config{})
	up := ts.MustUploadHeapDump(t, webtest.LeakShapeDump(t, false, 3, 1<<20))
	rep, err := ts.DB.Report(t.Context(), up.ReportID)
	if err != nil {
		t.Fatal(err)
	}
	var sum heapdumps.Summary
	if err := json.Unmarshal(rep.Summary, &sum); err != nil || !sum.Indexed {
		t.Fatalf("the summary of a new report says indexed %v (%v)", sum.Indexed, err)
	}
	sum.Indexed = false
	old := &store.Report{Kind: heapdumps.ReportDump, Params: rep.Params, Summary: page.MustJSON(sum)}
	a := rep.Artifacts[0]
	if err := ts.DB.CreateReport(t.Context(), old, []store.Upload{{Name: a.Name, SHA256: a.SHA256, Size: a.Size}}); err != nil {
		t.Fatal(err)
	}
	doc, _ := ts.Page(t, page.ReportURL(old.ID))
	thread := doc.Find(`[data-testid="dominator"][data-level="0"]`).FilterFunction(func(_ int, s *goquery.Selection) bool {
		return s.ChildrenFiltered("details").Find(`summary [data-testid="dominator-class"]`).First().Text() == "LeakShape$ConsumerThread"
	}).First()
	consumer := thread.Find(`[data-testid="dominator"][data-level="1"]`).First()
	if consumer.Find(`[data-testid="dominator-class"]`).Text() != "LeakShape$Consumer" || doc.Find(`[data-testid="dominator-expand"]`).Length() != 0 {
		t.Errorf("the old report's tree: %q", thread.Text())
	}
	code, _, body := ts.Get(t, heapdumps.DomURL(old.ID)+".json")
	if code != http.StatusNotFound || !strings.Contains(string(body), "no stored index") {
		t.Errorf("the endpoint of an old report: %d %s", code, body)
	}
}
