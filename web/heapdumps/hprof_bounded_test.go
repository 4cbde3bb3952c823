package heapdumps_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/hprof"
	"github.com/leakui/leakui/internal/hostile"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web"
	"github.com/leakui/leakui/web/heapdumps"
	"github.com/leakui/leakui/web/internal/webtest"
	"github.com/leakui/leakui/web/page"
)

// heapSummaryOf reads a heap dump report's stored analysis.
func heapSummaryOf(t *testing.T, ts *webtest.Server, id string) *hprof.Report {
	t.Helper()
	rep, err := ts.DB.Report(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	hr, _, err := heapdumps.StoredReport(rep)
	if err != nil {
		t.Fatal(err)
	}
	return hr
}

// TestHeapDumpChainViewsAreBounded analyzes a dump whose only suspect sits at
// the end of a chain of 100,000 objects: the summary, the page, the JSON, the
// Markdown and the dominators page of the accumulation point keep the path's
// and the chain's ends with "… N more", and the path's page pages every step
// from the stored index.
func TestHeapDumpChainViewsAreBounded(t *testing.T) {
	const n = 100_000
	ts := newTestServer(t, web.Config{})
	up := ts.MustUploadHeapDump(t, webtest.ChainDump(t, n))
	id := up.ReportID
	rep, _ := ts.DB.Report(t.Context(), id)
	hr := heapSummaryOf(t, ts, id)
	if len(hr.Suspects) != 1 {
		t.Fatalf("%d suspects", len(hr.Suspects))
	}
	su := hr.Suspects[0]
	steps := su.PathLength
	if steps < n-10 || len(su.Path) != 2*hprof.PathEnds {
		t.Fatalf("the suspect's path: %d steps kept of %d", len(su.Path), steps)
	}
	sizes := map[string]int{"summary": len(rep.Summary)}
	get := func(what, path string) []byte {
		t.Helper()
		code, _, body := ts.Get(t, path)
		if code != http.StatusOK {
			t.Fatalf("%s: %d %.300s", what, code, body)
		}
		sizes[what] = len(body)
		return body
	}

	// The page: the path's ends, a gap linking to the path's page.
	doc, body := ts.Page(t, page.ReportURL(id))
	sizes["page"] = len(body)
	gap := doc.Find(`[data-testid="path-gap"]`)
	if doc.Find(`[data-testid="path-step"]`).Length() != 2*hprof.PathEnds || gap.Length() != 1 ||
		gap.AttrOr("data-gap", "") != strconv.Itoa(steps-2*hprof.PathEnds) {
		t.Errorf("the page's path: %d steps, gap %q of %d", doc.Find(`[data-testid="path-step"]`).Length(), gap.AttrOr("data-gap", ""), steps)
	}
	link := gap.Find(`[data-testid="path-gap-link"]`).AttrOr("href", "")
	if link != heapdumps.PathURL(id, 0)+"?offset="+strconv.Itoa(hprof.PathEnds) {
		t.Errorf("the gap links to %q", link)
	}
	if !strings.Contains(doc.Find(`[data-testid="path-summary"]`).Text(), analyze.FormatCount(int64(steps))+" objects") {
		t.Errorf("path summary %q", doc.Find(`[data-testid="path-summary"]`).Text())
	}

	// The path's page: the steps after the kept head, then the last page.
	pdoc, pbody := ts.Page(t, link)
	sizes["path page"] = len(pbody)
	first := pdoc.Find(`[data-testid="path-step"]`)
	if first.Length() != heapdumps.PathPage || first.First().AttrOr("data-index", "") != strconv.Itoa(hprof.PathEnds) ||
		pdoc.Find(`[data-testid="path-next"]`).Length() != 1 || pdoc.Find(`[data-testid="path-prev"]`).Length() != 1 {
		t.Errorf("the path's page: %d steps from %s", first.Length(), first.First().AttrOr("data-index", ""))
	}
	var pg heapdumps.PathJSON
	js := get("path json", heapdumps.PathURL(id, 0)+".json?offset="+strconv.Itoa(steps-10))
	if err := json.Unmarshal(js, &pg); err != nil {
		t.Fatal(err)
	}
	if pg.Length != steps || len(pg.Steps) != 10 || pg.Next != "" || pg.Prev == "" ||
		pg.Steps[9].Object.Ordinal != su.Accumulation.Ordinal || pg.Steps[9].Field != "next" {
		t.Errorf("the path's last page: %d of %d steps, next %q, last %+v", len(pg.Steps), pg.Length, pg.Next, pg.Steps[len(pg.Steps)-1])
	}
	for _, bad := range []string{"/paths/1", "/paths/x", "/paths/-1"} {
		if code, _, _ := ts.Get(t, page.ReportURL(id)+bad); code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", bad, code)
		}
	}

	// The JSON: the path's ends and the URL of its pages.
	var doc2 struct {
		Analysis struct {
			Suspects []hprof.Suspect `json:"suspects"`
			PathURLs []string        `json:"path_urls"`
		} `json:"analysis"`
	}
	if err := json.Unmarshal(get("json", page.ReportJSONURL(id)), &doc2); err != nil {
		t.Fatal(err)
	}
	if s := doc2.Analysis.Suspects; len(s) != 1 || len(s[0].Path) != 2*hprof.PathEnds || s[0].PathLength != steps ||
		len(doc2.Analysis.PathURLs) != 1 || !strings.HasSuffix(doc2.Analysis.PathURLs[0], heapdumps.PathURL(id, 0)+".json") {
		t.Errorf("the JSON's suspects: %+v, paths %v", s, doc2.Analysis.PathURLs)
	}

	// The Markdown: the ends and a line for the steps between.
	md := string(get("markdown", page.ReportURL(id)+".md"))
	if !strings.Contains(md, "… "+analyze.FormatCount(int64(steps-2*hprof.PathEnds))+" more steps") || strings.Count(md, "via `.next`") > 2*hprof.PathEnds {
		t.Errorf("the Markdown's path:\n%s", md)
	}

	// The dominators page of the accumulation point: its chain by its ends.
	node := strconv.FormatUint(uint64(su.Accumulation.Ordinal), 10)
	ddoc, dbody := ts.Page(t, heapdumps.DomURL(id)+"?node="+node)
	sizes["dominators page"] = len(dbody)
	if c := ddoc.Find(`[data-testid="chain-step"]`).Length(); c != heapdumps.ChainEnds+1 || ddoc.Find(`[data-testid="chain-gap"]`).Length() != 1 {
		t.Errorf("the chain: %d steps, %d gaps", c, ddoc.Find(`[data-testid="chain-gap"]`).Length())
	}
	var dom heapdumps.DomJSON
	if err := json.Unmarshal(get("dominators json", heapdumps.DomURL(id)+".json?node="+node), &dom); err != nil {
		t.Fatal(err)
	}
	if len(dom.Path) != heapdumps.ChainEnds+1 || dom.PathLength < n-10 || dom.PathIndex[0] != 0 || dom.PathIndex[len(dom.PathIndex)-1] != dom.PathLength-1 {
		t.Errorf("the chain's JSON: %d objects of %d", len(dom.Path), dom.PathLength)
	}
	get("chain fragment", heapdumps.DomURL(id)+"?node="+node+"&chain=1")
	t.Logf("bytes: %v", sizes)
	for what, n := range sizes {
		if n > 256<<10 {
			t.Errorf("%s: %d bytes", what, n)
		}
	}
}

// TestHeapDumpCorruptIndexDegrades spoils the index stored with a report: the
// page shows the summary with a notice instead of failing, the JSON says so,
// and only the views that need the index answer 422.
func TestHeapDumpCorruptIndexDegrades(t *testing.T) {
	ts := newTestServer(t, web.Config{})
	up := ts.MustUploadHeapDump(t, webtest.ChainDump(t, 1000))
	id := up.ReportID
	// The index with its records section said to be past its end.
	b, err := ts.DB.OpenDerived(t.Context(), id, heapdumps.IndexName)
	if err != nil {
		t.Fatal(err)
	}
	index := make([]byte, b.Size())
	_, err = b.ReadAt(index, 0)
	b.Close()
	if err != nil {
		t.Fatal(err)
	}
	corrupt := bytes.Clone(index)
	copy(corrupt[:8], "NOTINDEX")
	if _, err := ts.DB.PutDerived(t.Context(), id, heapdumps.IndexName, bytes.NewReader(corrupt)); err != nil {
		t.Fatal(err)
	}
	doc, _ := ts.Page(t, page.ReportURL(id))
	notice := doc.Find(`[data-testid="notice"]`).Text()
	if !strings.Contains(notice, "cannot be read") || doc.Find(`[data-testid="suspect"]`).Length() != 1 ||
		doc.Find(`[data-testid="dominators"] [data-testid="dominator"]`).Length() == 0 || doc.Find(`[data-testid="path-gap-link"]`).Length() != 0 {
		t.Errorf("the page of a report whose index is corrupt: notice %q", notice)
	}
	code, _, body := ts.Get(t, page.ReportJSONURL(id))
	if code != http.StatusOK || !strings.Contains(string(body), "cannot be read") {
		t.Errorf("the JSON: %d %.300s", code, body)
	}
	if code, _, _ := ts.Get(t, page.ReportURL(id)+".md"); code != http.StatusOK {
		t.Errorf("the Markdown: %d", code)
	}
	for _, path := range []string{heapdumps.DomURL(id) + ".json", heapdumps.PathURL(id, 0)} {
		if code, _, _ := ts.Get(t, path); code != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d, want 422", path, code)
		}
	}
}

// TestDashboardListsByHeadline stores a report whose summary is 40 MB: the
// dashboard lists it from its headline columns, never reading the summary (it
// allocates a fraction of it), and shows the column's line, not the summary's.
func TestDashboardListsByHeadline(t *testing.T) {
	ts := newTestServer(t, web.Config{})
	pad := strings.Repeat("x", 40<<20)
	sum := fmt.Sprintf(`{"objects":5,"reachable":1024,"headline":"from the summary","pad":%q}`, pad)
	data := []byte("JAVA PROFILE 1.0.2\x00 not analyzed")
	r := &store.Report{Kind: heapdumps.ReportDump, Summary: json.RawMessage(sum),
		Headline: store.Headline{Verdict: "leak", Line: "from the headline column", Set: true}}
	if err := ts.DB.CreateReport(t.Context(), r, []store.Upload{testUpload("big.hprof", data)}); err != nil {
		t.Fatal(err)
	}
	pad, sum = "", ""
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	code, _, body := ts.Get(t, "/")
	runtime.ReadMemStats(&after)
	if code != http.StatusOK {
		t.Fatalf("dashboard: %d", code)
	}
	doc, _ := goquery.NewDocumentFromReader(bytes.NewReader(body))
	item := doc.Find(`[data-testid="report-item"]`)
	if item.Length() != 1 || !strings.Contains(item.Text(), "from the headline column") || strings.Contains(item.Text(), "from the summary") ||
		item.Find(`[data-testid="report-link"]`).Text() != "big.hprof" || item.Find(`[data-testid="report-verdict"]`).Text() != "leak" ||
		item.Find(`[data-testid="report-size"]`).Text() != analyze.FormatBytes(int64(len(data))) {
		t.Errorf("the listed report: %q", item.Text())
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("the dashboard allocated %s with a 40 MB summary stored", analyze.FormatBytes(int64(alloc)))
	if alloc > 8<<20 {
		t.Errorf("the dashboard allocated %d bytes: it read the summary", alloc)
	}
	// The search by verdict reads the column too.
	if code, _, body := ts.Get(t, "/?q=leak"); code != http.StatusOK || !strings.Contains(string(body), "from the headline column") {
		t.Errorf("search by verdict: %d", code)
	}
}

// testUpload is an upload of data named name.
func testUpload(name string, data []byte) store.Upload {
	sum := sha256.Sum256(data)
	return store.Upload{Name: name, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data)), Kind: "jvm-heapdump",
		Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
}

// TestHeadlinesBackfilledAtStart stores reports as a store without headlines
// did: the server that opens the store works out their verdicts and lines
// once, and the dashboard lists them.
func TestHeadlinesBackfilledAtStart(t *testing.T) {
	ts := newTestServer(t, web.Config{})
	r := &store.Report{Kind: heapdumps.ReportDump, Summary: json.RawMessage(`{"objects":5,"reachable":1024,"headline":"One instance of ` + "`a.B`" + ` retains 1.0 kB (50%)."}`),
		Headline: store.Headline{Set: false}}
	ts.DB.SetHeadliner(nil)
	if err := ts.DB.CreateReport(t.Context(), r, []store.Upload{testUpload("old.hprof", []byte("old bytes"))}); err != nil {
		t.Fatal(err)
	}
	if got, _ := ts.DB.Report(t.Context(), r.ID); got.Headline.Set || got.Headline.Line != "" {
		t.Fatalf("stored without a headliner: %+v", got.Headline)
	}
	srv, err := web.NewServer(web.Config{Store: ts.DB, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	got, _ := ts.DB.Report(context.Background(), r.ID)
	if want := "5 objects, 1.0 kB reachable; One instance of a.B retains 1.0 kB (50%)."; !got.Headline.Set || got.Headline.Line != want {
		t.Errorf("after the start: %+v, want the line %q", got.Headline, want)
	}
}

// TestHeapDumpSummaryWorstCase fills a heap dump report to every bound of the
// analysis and of heapdumps.ReportOptions, each name as long as hprof keeps it
// and made of characters JSON and HTML escape: the stored summary stays within
// about 2 MB, and so do its page, JSON and Markdown.
func TestHeapDumpSummaryWorstCase(t *testing.T) {
	name := strings.Repeat("<", hprof.MaxName)
	text := strings.Repeat("<", 160)
	obj := hprof.Object{ID: "0xffffffffffffffff", Class: name, Text: text, Shallow: 1 << 40, Retained: 1 << 40, Dominated: 1 << 30}
	opt := heapdumps.ReportOptions
	rep := &hprof.Report{Reachable: 1 << 50}
	for range opt.Top {
		top := obj
		for range opt.Fanout {
			top.Children = append(top.Children, obj)
		}
		rep.Dominators = append(rep.Dominators, top)
		rep.Threads = append(rep.Threads, hprof.Thread{Name: name, Object: obj, Stack: slicesRepeat(hprof.Frame{Class: name, Method: name, Source: name}, hprof.MaxStack)})
		rep.Histogram = append(rep.Histogram, hprof.ClassRow{Name: name})
		rep.Packages = append(rep.Packages, hprof.PackageRow{Package: name})
		rep.DuplicateStrings = append(rep.DuplicateStrings, hprof.DuplicateString{Text: text})
	}
	// Each suspect retains a tenth of the heap or more: ten at most.
	for range 10 {
		su := hprof.Suspect{Class: name, Holder: name, Accumulation: obj, Share: 0.1, PathLength: 1 << 30,
			Threads:  slicesRepeat(name, hprof.MaxHoldingThreads),
			Sentence: "12 instances of `" + name + "` retain 1 GB (10%), accumulated in threads `" + name + "`, `" + name + "`, `" + name + "` and 5 more."}
		for i := range 2 * hprof.PathEnds {
			su.Path = append(su.Path, hprof.Step{Object: obj, Field: name, Root: name, Index: i * 1000})
		}
		rep.Suspects = append(rep.Suspects, su)
	}
	sum, err := json.Marshal(heapdumps.SummaryOf(rep))
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, web.Config{})
	r := &store.Report{Kind: heapdumps.ReportDump, Summary: sum}
	if err := ts.DB.CreateReport(t.Context(), r, []store.Upload{testUpload("worst.hprof", []byte("worst"))}); err != nil {
		t.Fatal(err)
	}
	sizes := map[string]int{"summary": len(sum)}
	for what, path := range map[string]string{"page": page.ReportURL(r.ID), "json": page.ReportJSONURL(r.ID), "markdown": page.ReportURL(r.ID) + ".md"} {
		code, _, body := ts.Get(t, path)
		if code != http.StatusOK {
			t.Fatalf("%s: %d %.300s", what, code, body)
		}
		sizes[what] = len(body)
	}
	t.Logf("bytes: %v", sizes)
	for what, n := range sizes {
		if n > 2<<20 {
			t.Errorf("%s: %d bytes", what, n)
		}
	}
}

// slicesRepeat is n copies of v.
func slicesRepeat[T any](v T, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// manyClassesDump is a dump of classes classes with instances of each, held
// by a static field of each class.
func manyClassesDump(t *testing.T, classes, instances int) webtest.File {
	t.Helper()
	var b bytes.Buffer
	h := hostile.NewHprofWriter(&b, 8)
	h.Class(0x100, 0, "java.lang.Object", nil, nil)
	h.StickyClassRoot(0x100)
	id := uint64(1 << 32)
	for c := range classes {
		class := uint64(0x1000 + 8*c)
		h.Class(class, 0x100, fmt.Sprintf("many.C%d", c), []hostile.HprofField{hostile.StaticRef("first", id)}, []hostile.HprofField{hostile.Ref("next")})
		h.StickyClassRoot(class)
		for i := range instances {
			next := uint64(0)
			if i+1 < instances {
				next = id + 8
			}
			h.Instance(id, class, next)
			id += 8
		}
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	return webtest.File{Name: fmt.Sprintf("many-%d.hprof", instances), Data: b.Bytes()}
}

// TestHeapDumpCompareKeepsTheTopClasses compares two dumps of more classes than
// a comparison keeps: each dump keeps its first heapdumps.CompareClasses classes
// by retained size, with its count of classes and the totals of all of them.
func TestHeapDumpCompareKeepsTheTopClasses(t *testing.T) {
	const classes = heapdumps.CompareClasses + 500
	ts := newTestServer(t, web.Config{})
	up := ts.MustUploadHeapDumps(t, manyClassesDump(t, classes, 1), manyClassesDump(t, classes, 2))
	rep, err := ts.DB.Report(t.Context(), up.ReportID)
	if err != nil {
		t.Fatal(err)
	}
	var sum heapdumps.ComparisonSummary
	if err := json.Unmarshal(rep.Summary, &sum); err != nil {
		t.Fatal(err)
	}
	for i, d := range sum.Dumps {
		if len(d.Classes) != heapdumps.CompareClasses || d.ClassCount < classes {
			t.Errorf("dump %d keeps %d classes of %d", i, len(d.Classes), d.ClassCount)
		}
	}
	t.Logf("summary: %s", analyze.FormatBytes(int64(len(rep.Summary))))
	if code, _, _ := ts.Get(t, page.ReportURL(up.ReportID)); code != http.StatusOK {
		t.Errorf("the page: %d", code)
	}
}

// TestOldHeapDumpReportsAreBoundedWhenShown stores a heap dump report as
// leakui stored them before paths kept their ends (a path of 50,000 steps,
// whole, without positions): its page, JSON and Markdown show the path's ends
// and how many steps are left out, in kilobytes.
func TestOldHeapDumpReportsAreBoundedWhenShown(t *testing.T) {
	const steps = 50_000
	su := hprof.Suspect{Class: "leak.Node", Holder: "leak.Node", Share: 1, Sentence: "One instance of `leak.Node` retains 1 GB (100%)."}
	for i := range steps {
		st := hprof.Step{Object: hprof.Object{Ordinal: uint32(i), ID: fmt.Sprintf("0x%x", 0x1000+8*i), Class: "leak.Node", Retained: int64(steps - i)}, Field: "next"}
		if i == 0 {
			st.Field, st.Root = "", "system class"
		}
		su.Path = append(su.Path, st)
	}
	sum := page.MustJSON(map[string]any{"objects": steps, "reachable": steps, "suspects": 1, "headline": su.Sentence,
		"report": map[string]any{"objects": steps, "suspects": []hprof.Suspect{su}}})
	ts := newTestServer(t, web.Config{})
	r := &store.Report{Kind: heapdumps.ReportDump, Summary: sum}
	if err := ts.DB.CreateReport(t.Context(), r, []store.Upload{testUpload("old.hprof", []byte("old"))}); err != nil {
		t.Fatal(err)
	}
	gap := analyze.FormatCount(steps - 2*hprof.PathEnds)
	for what, path := range map[string]string{"page": page.ReportURL(r.ID), "json": page.ReportJSONURL(r.ID), "markdown": page.ReportURL(r.ID) + ".md"} {
		code, _, body := ts.Get(t, path)
		if code != http.StatusOK || len(body) > 64<<10 {
			t.Errorf("%s: %d, %d bytes", what, code, len(body))
		}
		if what == "markdown" && !strings.Contains(string(body), "… "+gap+" more steps") {
			t.Errorf("the Markdown:\n%s", body)
		}
		if what == "page" && !strings.Contains(string(body), "… "+gap+" more steps") {
			t.Errorf("the page lacks the gap of %s steps", gap)
		}
	}
	t.Logf("a stored summary of %s", analyze.FormatBytes(int64(len(sum))))
}
