package heapdumps_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/leakui/leakui/analyze/hprof"
	"github.com/leakui/leakui/internal/javatest"
	"github.com/leakui/leakui/web"
	"github.com/leakui/leakui/web/heapdumps"
	"github.com/leakui/leakui/web/internal/webtest"
)

// TestHeapDumpTreeGroupedByClass uploads a real dump of 30 consumer threads:
// the report page groups the tree's top level by class by default, so that no
// class shows GroupAuto rows or more; the 30 threads are one row, "30 ×
// LeakShape$ConsumerThread", retaining what the 30 retain in the stored
// index, and open (the fragment the page's button loads) onto 25 of them and a
// link to the rest. The toggle shows one row per object. The JSON twin,
// grouped when asked, pages through groups that add up to the reachable heap
// and the top level's objects, and each group's members URL lists its objects
// as the index does.
func TestHeapDumpTreeGroupedByClass(t *testing.T) {
	ts := newTestServer(t, web.Config{})
	up := ts.MustUploadHeapDump(t, webtest.LeakShapeDump(t, false, 30, 4096))
	x := openStoredIndex(t, ts, up.ReportID)
	const threads = "LeakShape$ConsumerThread"

	top, topTotal, err := x.Children(hprof.IndexRoot, 0, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	var want30 int64
	for _, o := range top {
		if o.Class == threads {
			want30 += o.Retained
		}
	}

	doc, _ := ts.Page(t, up.ReportURL)
	rows := map[string]int{}
	doc.Find(`[data-testid="dominators"] > [data-testid="dominator"]`).Each(func(_ int, s *goquery.Selection) {
		rows[s.Find(`[data-testid="dominator-class"]`).Text()]++
	})
	for c, n := range rows {
		if n >= heapdumps.GroupAuto {
			t.Errorf("the grouped top level shows %d rows of %s", n, c)
		}
	}
	group := doc.Find(`[data-testid="dominators"] > [data-testid="dominator-group"]`).FilterFunction(func(_ int, s *goquery.Selection) bool {
		return s.Find(`[data-testid="dominator-class"]`).Text() == threads
	})
	if group.Length() != 1 || group.AttrOr("data-members", "") != "30" || group.Find(`[data-testid="group-count"]`).Text() != "30 ×" ||
		group.AttrOr("data-retained", "") != strconv.FormatInt(want30, 10) {
		t.Fatalf("the consumer threads' group: %d rows, %q members, retained %s (the index: %d); the tree: %q", group.Length(),
			group.AttrOr("data-members", ""), group.AttrOr("data-retained", ""), want30, doc.Find(`[data-testid="dominators"]`).Text())
	}
	if doc.Find(`[data-testid="group-mode"][aria-current="page"]`).AttrOr("data-mode", "") != "group by class" {
		t.Errorf("the toggle marks %q", doc.Find(`[data-testid="group-mode"][aria-current="page"]`).AttrOr("data-mode", ""))
	}
	cls := group.AttrOr("data-class", "")
	frag := fragment(t, ts, heapdumps.DomURL(up.ReportID)+"?node=root&class="+cls+"&level=1&fragment=1")
	members := frag.Find(`[data-testid="dominator"]`)
	if members.Length() != heapdumps.DomPage || members.FilterFunction(func(_ int, s *goquery.Selection) bool {
		return s.Find(`[data-testid="dominator-class"]`).Text() == threads && s.AttrOr("data-level", "") == "1"
	}).Length() != heapdumps.DomPage {
		t.Errorf("the group opens onto %d rows: %q", members.Length(), frag.Text())
	}
	if more := frag.Find(`[data-testid="dominator-more"]`).AttrOr("href", ""); !strings.Contains(more, "class="+cls) || !strings.Contains(more, "offset=25") {
		t.Errorf("the group's next page is %q", more)
	}

	// The toggle: one row per object.
	flat, _ := ts.Page(t, up.ReportURL+"?group=none")
	if n := flat.Find(`[data-testid="dominators"] > [data-testid="dominator-group"]`).Length(); n != 0 {
		t.Errorf("group=none shows %d groups", n)
	}
	if n := flat.Find(`[data-testid="dominators"] > [data-testid="dominator"]`).Length(); n != heapdumps.DomPage {
		t.Errorf("group=none shows %d rows", n)
	}

	// The JSON, grouped, page by page.
	var sumRetained, sumObjects int64
	next := heapdumps.DomURL(up.ReportID) + ".json?node=root&group=class"
	for pages := 0; next != ""; pages++ {
		var p heapdumps.DomJSON
		ts.GetJSON(t, next, &p)
		want, total, err := x.ChildGroups(hprof.IndexRoot, p.Offset, heapdumps.DomPage)
		if err != nil || !p.Grouped || p.Total != total || len(p.Groups) != len(want) {
			t.Fatalf("grouped page at %d: %+v; the index: %d of %d groups (%v)", p.Offset, p, len(want), total, err)
		}
		for i, g := range p.Groups {
			if g.ChildGroup.ClassGroup != want[i].ClassGroup || g.Largest.Ordinal != want[i].Largest.Ordinal {
				t.Errorf("group %d: %+v, the index's %+v", p.Offset+i, g.ChildGroup, want[i])
			}
			sumRetained += g.Retained
			sumObjects += g.Objects
			if g.Name == threads {
				var m heapdumps.DomJSON
				ts.GetJSON(t, g.Members, &m)
				wantM, n, _ := x.ClassMembers(hprof.IndexRoot, g.Class, 0, heapdumps.DomPage)
				if m.Total != 30 || n != 30 || len(m.Children) != len(wantM) || m.Children[0].Ordinal != wantM[0].Ordinal || m.Next == "" {
					t.Errorf("the threads' members: %d of %d, next %q", len(m.Children), m.Total, m.Next)
				}
			}
		}
		next = p.Next
		if pages > 100 {
			t.Fatal("the grouped pages do not end")
		}
	}
	if sumRetained != x.TotalRetained() || sumObjects != int64(topTotal) {
		t.Errorf("the groups retain %d in %d objects; the reachable heap is %d, the top level %d objects", sumRetained, sumObjects, x.TotalRetained(), topTotal)
	}
	// Without group=class the JSON is one row per object, as before.
	var plain heapdumps.DomJSON
	ts.GetJSON(t, heapdumps.DomURL(up.ReportID)+".json?node=root", &plain)
	if plain.Grouped || len(plain.Children) != heapdumps.DomPage {
		t.Errorf("the JSON without group: grouped %v, %d children", plain.Grouped, len(plain.Children))
	}
	for _, bad := range []string{"?group=tree", "?class=-1", "?class=999999&node=root"} {
		if code, _, body := ts.Get(t, heapdumps.DomURL(up.ReportID)+".json"+bad); code != http.StatusBadRequest && code != http.StatusNotFound {
			t.Errorf("%s: %d %s", bad, code, body)
		}
	}
}

// fragment fetches an HTML fragment of list items.
func fragment(t *testing.T, ts *webtest.Server, path string) *goquery.Document {
	t.Helper()
	code, _, body := ts.Get(t, path)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader("<ul>" + string(body) + "</ul>"))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// leakui builds the leakui command once for a test.
func buildLeakui(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "leakui")
	cmd := exec.Command("go", "build", "-o", bin, "../../cmd/leakui")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// cliJSON runs `leakui hprof -json ARGS DUMP` and decodes what it prints.
func cliJSON(t *testing.T, bin, dump string, v any, args ...string) {
	t.Helper()
	out, err := exec.Command(bin, append(append([]string{"hprof", "-json"}, args...), dump)...).Output()
	if err != nil {
		t.Fatalf("leakui hprof %v: %v", args, err)
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("leakui hprof %v: %v\n%s", args, err, out)
	}
}

// TestHeapDumpViewsEqualTheCLI uploads a real dump taken with -all (the
// SAMZA-2785 shape, with weak references to the consumers and garbage) and
// reads each view's page and JSON twin, linked from the report page: the
// numbers are those `leakui hprof -json -view …` prints for the same file
// (the tree by class loader, the unreachable objects, the duplicate classes,
// the native memory section, a path); the unreachable objects are the dump's
// objects minus the reachable ones; the shortest strong path to the
// suspect's accumulation object never passes through Reference.referent. The
// page's title names the file, and the suspect's share is its accumulation
// object's own.
func TestHeapDumpViewsEqualTheCLI(t *testing.T) {
	jh := javatest.RunAll(t, "../../analyze/hprof/testdata/LeakShape.java", false, []string{"-XX:+UseSerialGC", "-Xmx128m"}, "6", "65536", "100", "10")
	data, err := os.ReadFile(jh.Dump)
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, web.Config{})
	up := ts.MustUploadHeapDump(t, webtest.File{Name: "LeakShape-all.hprof", Data: data})
	bin := buildLeakui(t)
	id := up.ReportID

	// The report page: its title, the suspect's share, the links to the views.
	doc, _ := ts.Page(t, up.ReportURL)
	if title := doc.Find(`[data-testid="report-title"]`).Text(); title != "JVM heap dump: LeakShape-all.hprof" {
		t.Errorf("title %q", title)
	}
	var rep struct {
		Objects   int64 `json:"objects"`
		Reachable int64 `json:"reachable"`
		Suspects  []struct {
			HolderShare  float64      `json:"holder_share"`
			Share        float64      `json:"share"`
			Accumulation hprof.Object `json:"accumulation"`
		} `json:"suspects"`
		Native *hprof.NativeMemory `json:"native_memory"`
	}
	cliJSON(t, bin, jh.Dump, &rep, "-n", "0")
	if len(rep.Suspects) == 0 || rep.Native == nil {
		t.Fatalf("the CLI's report: %+v", rep)
	}
	if got, want := doc.Find(`[data-testid="suspect"][data-rank="1"] [data-testid="suspect-share"]`).Text(), fmt.Sprintf("%.1f%% of the heap", 100*rep.Suspects[0].HolderShare); got != want {
		t.Errorf("the suspect's share reads %q, want %q (its accumulation object's; the group's is %.1f%%)", got, want, 100*rep.Suspects[0].Share)
	}
	var twin struct {
		Analysis struct {
			ViewURLs map[string]string `json:"view_urls"`
		} `json:"analysis"`
	}
	ts.GetJSON(t, "/api/reports/"+id, &twin)
	for _, name := range []string{"native", "by-loader", "unreachable", "duplicate-classes"} {
		if u := twin.Analysis.ViewURLs[name]; !strings.HasSuffix(u, heapdumps.ViewURL(id, name)+".json") {
			t.Errorf("the JSON twin's view_urls[%s] = %q", name, u)
		}
	}
	views := map[string]string{}
	doc.Find(`[data-testid="heap-view"]`).Each(func(_ int, s *goquery.Selection) { views[s.AttrOr("data-view", "")] = s.AttrOr("href", "") })
	for label, name := range map[string]string{"Native memory": "native", "Dominator tree by class loader": "by-loader",
		"Unreachable objects by class": "unreachable", "Duplicate classes": "duplicate-classes"} {
		if views[label] != heapdumps.ViewURL(id, name) {
			t.Errorf("the report links %q to %q", label, views[label])
		}
		page, _ := ts.Page(t, heapdumps.ViewURL(id, name))
		if page.Find(`[data-testid="report-title"]`).Length() != 1 || page.Find(`[data-testid="link-JSON"]`).Length() != 1 {
			t.Errorf("the %s page has no title or JSON link", name)
		}
	}

	// Grouped by class loader.
	var cliLoaders struct {
		Loaders []hprof.LoaderGroup `json:"loaders"`
		Total   int                 `json:"total"`
	}
	cliJSON(t, bin, jh.Dump, &cliLoaders, "-n", "0", "-view", "by-loader")
	var webLoaders heapdumps.LoadersJSON
	ts.GetJSON(t, heapdumps.ViewURL(id, "by-loader")+".json", &webLoaders)
	if webLoaders.Total != cliLoaders.Total || len(webLoaders.Loaders) != min(cliLoaders.Total, heapdumps.ViewPage) {
		t.Fatalf("by loader: %d of %d on the web, %d on the CLI", len(webLoaders.Loaders), webLoaders.Total, cliLoaders.Total)
	}
	var loaderSum int64
	for i, l := range webLoaders.Loaders {
		c := cliLoaders.Loaders[i]
		if l.Loader.Class != c.Loader.Class || l.Loader.ID != c.Loader.ID || l.Objects != c.Objects || l.Retained != c.Retained || l.Shallow != c.Shallow || l.Classes != c.Classes {
			t.Errorf("loader %d: web %+v, CLI %+v", i, l, c)
		}
		loaderSum += l.Retained
	}
	if loaderSum != rep.Reachable {
		t.Errorf("the loaders retain %d, the reachable heap is %d", loaderSum, rep.Reachable)
	}
	first := webLoaders.Loaders[0]
	ref := "bootstrap"
	if first.Loader.Ordinal != hprof.IndexRoot {
		ref = strconv.FormatUint(uint64(first.Loader.Ordinal), 10)
	}
	var classes heapdumps.LoadersJSON
	ts.GetJSON(t, heapdumps.ViewURL(id, "by-loader")+".json?loader="+ref, &classes)
	var n int64
	for _, c := range classes.Classes {
		n += c.Objects
	}
	if classes.Total != first.Classes || (classes.Next == "" && n != first.Objects) {
		t.Errorf("the first loader's classes: %d of %d, %d objects; the loader: %+v", len(classes.Classes), classes.Total, n, first)
	}

	// Unreachable objects: the dump's objects minus the reachable ones.
	var cliUnreachable struct {
		Classes []hprof.UnreachableClass `json:"classes"`
		Total   int                      `json:"total"`
		All     hprof.UnreachableClass   `json:"all"`
	}
	cliJSON(t, bin, jh.Dump, &cliUnreachable, "-n", "0", "-view", "unreachable")
	var webUnreachable heapdumps.UnreachableJSON
	ts.GetJSON(t, heapdumps.ViewURL(id, "unreachable")+".json", &webUnreachable)
	x := openStoredIndex(t, ts, id)
	if webUnreachable.All != cliUnreachable.All || webUnreachable.Total != cliUnreachable.Total ||
		webUnreachable.All.Objects != rep.Objects-int64(x.Reachable()) || webUnreachable.All.Unreachable.Count == 0 {
		t.Errorf("unreachable: web %+v of %d classes, CLI %+v of %d; the dump's objects %d minus the reachable %d", webUnreachable.All, webUnreachable.Total,
			cliUnreachable.All, cliUnreachable.Total, rep.Objects, x.Reachable())
	}
	for i, c := range webUnreachable.Classes {
		if c != cliUnreachable.Classes[i] {
			t.Errorf("unreachable class %d: web %+v, CLI %+v", i, c, cliUnreachable.Classes[i])
		}
	}
	up2, _ := ts.Page(t, heapdumps.ViewURL(id, "unreachable"))
	if got := up2.Find(`[data-testid="unreachable-row"]`).Length(); got != min(webUnreachable.Total, heapdumps.ViewPage) {
		t.Errorf("the unreachable page shows %d rows of %d", got, webUnreachable.Total)
	}

	// Duplicate classes.
	var cliDups struct {
		Classes []hprof.DuplicateClass `json:"classes"`
		Total   int                    `json:"total"`
	}
	cliJSON(t, bin, jh.Dump, &cliDups, "-n", "0", "-view", "duplicate-classes")
	var webDups heapdumps.DuplicatesJSON
	ts.GetJSON(t, heapdumps.ViewURL(id, "duplicate-classes")+".json", &webDups)
	if webDups.Total != cliDups.Total || len(webDups.Classes) != min(cliDups.Total, heapdumps.ViewPage) {
		t.Errorf("duplicate classes: web %d of %d, CLI %d", len(webDups.Classes), webDups.Total, cliDups.Total)
	}
	for i, d := range webDups.Classes {
		if d.Class != cliDups.Classes[i].Class || d.Instances != cliDups.Classes[i].Instances || len(d.Loaders) != len(cliDups.Classes[i].Loaders) {
			t.Errorf("duplicate class %d: web %+v, CLI %+v", i, d, cliDups.Classes[i])
		}
	}

	// Native memory.
	var webNative heapdumps.NativeJSON
	ts.GetJSON(t, heapdumps.ViewURL(id, "native")+".json", &webNative)
	if w, c := webNative.Native, rep.Native; w == nil || w.Bytes != c.Bytes || w.DirectBuffers != c.DirectBuffers || w.Inflaters != c.Inflaters ||
		w.Deflaters != c.Deflaters || w.MappedBuffers != c.MappedBuffers || w.Threads != c.Threads {
		t.Errorf("native memory: web %+v, CLI %+v", w, c)
	}
	nat, _ := ts.Page(t, heapdumps.ViewURL(id, "native"))
	if nat.Find(`[data-testid="native-row"]`).Length() != 5 || nat.Find(`[data-testid="native-row"]`).Last().AttrOr("data-bytes", "") != strconv.FormatInt(rep.Native.Threads.Bytes, 10) {
		t.Errorf("the native memory page: %q", nat.Find(`[data-testid="native-table"]`).Text())
	}

	// The shortest strong path to the suspect's accumulation object.
	o := rep.Suspects[0].Accumulation.Ordinal
	var cliPath struct {
		Steps  []hprof.Step `json:"steps"`
		Length int          `json:"length"`
	}
	cliJSON(t, bin, jh.Dump, &cliPath, "-n", "1000", "-view", "path", "-object", strconv.FormatUint(uint64(o), 10))
	var webPath heapdumps.ObjectPathJSON
	ts.GetJSON(t, heapdumps.ObjectPathURL(id, o)+".json", &webPath)
	if !webPath.StrongOnly || webPath.Length != cliPath.Length || len(webPath.Steps) != min(webPath.Length, heapdumps.PathPage) || webPath.Length < 2 {
		t.Fatalf("the path to %d: web %d of %d steps, CLI %d", o, len(webPath.Steps), webPath.Length, cliPath.Length)
	}
	for i, st := range webPath.Steps {
		c := cliPath.Steps[i]
		if st.Object.Ordinal != c.Object.Ordinal || st.Field != c.Field || st.Root != c.Root {
			t.Errorf("step %d: web %+v, CLI %+v", i, st, c)
		}
		if st.Field == "referent" {
			t.Errorf("step %d goes through a Reference's referent: %+v", i, st)
		}
	}
	if last := webPath.Steps[len(webPath.Steps)-1]; webPath.Length <= heapdumps.PathPage && last.Object.Ordinal != o {
		t.Errorf("the path ends at %+v, not at %d", last.Object, o)
	}
	pp, _ := ts.Page(t, heapdumps.ObjectPathURL(id, o))
	if pp.Find(`[data-testid="path-step"]`).Length() != len(webPath.Steps) || pp.Find(`[data-testid="path-note"]`).Length() != 1 {
		t.Errorf("the path page: %q", pp.Find("main").Text())
	}
	for _, bad := range []string{"/objects/x/path", "/objects/99999999/path", "/by-loader?loader=zz", "/unreachable?offset=-1"} {
		if code, _, body := ts.Get(t, "/r/"+id+bad); code != http.StatusBadRequest && code != http.StatusNotFound {
			t.Errorf("%s: %d %s", bad, code, body)
		}
	}
}
