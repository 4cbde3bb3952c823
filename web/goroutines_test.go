package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	webgoroutines "github.com/leakui/leakui/web/goroutines"

	"github.com/PuerkitoBio/goquery"

	"github.com/leakui/leakui/analyze/goroutines"
	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/greptest"
	"github.com/leakui/leakui/internal/markdown"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/view"
)

// goroutineDoc is the JSON twin of a goroutines report, as a client reads it.
type goroutineDoc struct {
	Kind      string                `json:"kind"`
	Artifacts []kind.Artifact       `json:"artifacts"`
	Summary   webgoroutines.Summary `json:"summary"`
	Notices   []string              `json:"notices"`
	Analysis  struct {
		Mode          string            `json:"mode"`
		BaseSHA256    string            `json:"base_sha256"`
		TargetSHA256  string            `json:"target_sha256"`
		GroupsAll     int               `json:"groups_all"`
		Total         int               `json:"total"`
		Format        string            `json:"format"`
		DeclaredTotal *int              `json:"declared_total"`
		Panic         *goroutines.Crash `json:"panic"`
		Base          *struct {
			Total int `json:"total"`
		} `json:"base"`
		Groups []goroutineGroupDoc `json:"groups"`
	} `json:"analysis"`
}

type goroutineGroupDoc struct {
	Count     int      `json:"count"`
	State     string   `json:"state"`
	Stack     []string `json:"stack"`
	IDs       []int64  `json:"ids"`
	Panicking bool     `json:"panicking"`
	BaseCount *int     `json:"base_count"`
	Delta     *int     `json:"delta"`
	New       bool     `json:"new"`
	Gone      bool     `json:"gone"`
}

func goroutineReportDoc(t *testing.T, ts *testServer, path string) goroutineDoc {
	t.Helper()
	code, _, body := ts.get(t, path)
	var doc goroutineDoc
	if code != 200 {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return doc
}

// goroutinePage fetches a report page and parses it.
func goroutinePage(t *testing.T, ts *testServer, path string) *goquery.Document {
	t.Helper()
	code, ct, body := ts.get(t, path)
	if code != 200 || !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("GET %s: %d %s %s", path, code, ct, body)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// dumpTotalByGrep is the number of goroutines a dump holds, read with grep: the
// total line of a debug=1 profile, else the goroutine headers.
func dumpTotalByGrep(t *testing.T, path string) int {
	t.Helper()
	if total := greptest.Output(t, "-oE", "^goroutine profile: total [0-9]+", path); len(total) == 1 {
		n, _ := strconv.Atoi(strings.TrimPrefix(total[0], "goroutine profile: total "))
		return n
	}
	return len(greptest.Output(t, "-E", `^goroutine [0-9]+ (gp=0x[0-9a-f]+ m=[^ ]+ (mp=[^ ]+ )?)?\[.*\]:$`, path))
}

func parseDumpFile(t testing.TB, path string) *goroutines.Dump {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := goroutines.Parse(f, 0)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestGoroutineFixtureReports uploads every shared goroutine dump alone and checks
// the report's JSON, page and Markdown against the engine and against the dump's
// own total (its total line, or its goroutine headers counted by grep).
func TestGoroutineFixtureReports(t *testing.T) {
	ts := newTestServer(t, Config{})
	for _, path := range fixtures.Glob(t, "goroutines", "*") {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			want := goroutines.NewReport(parseDumpFile(t, path), nil)
			grepTotal := dumpTotalByGrep(t, path)
			if want.Total != grepTotal {
				t.Fatalf("the engine reads %d goroutines, grep %d", want.Total, grepTotal)
			}
			status, up, raw := ts.upload(t, fixture(t, "goroutines", name))
			if status != 201 || len(up.Artifacts) != 1 || up.Artifacts[0].Kind != "goroutines" {
				t.Fatalf("upload: %d %s", status, raw)
			}

			doc := goroutineReportDoc(t, ts, "/api/reports/"+up.ReportID+"?n=all")
			a := doc.Analysis
			if doc.Kind != webgoroutines.ReportKind || a.Mode != "dump" || a.Total != grepTotal || a.GroupsAll != len(want.Groups) ||
				len(a.Groups) != len(want.Groups) || a.Format != want.Format {
				t.Fatalf("JSON: kind %s mode %s total %d groups %d/%d format %s; want %d goroutines in %d groups (%s)",
					doc.Kind, a.Mode, a.Total, len(a.Groups), a.GroupsAll, a.Format, grepTotal, len(want.Groups), want.Format)
			}
			sum := 0
			for i, g := range a.Groups {
				sum += g.Count
				w := want.Groups[i]
				if g.Count != w.Count || g.State != w.State || !slices.Equal(g.Stack, w.Stack.Funcs()) || !slices.Equal(g.IDs, w.IDs) {
					t.Errorf("group %d: %d %q %v; the engine says %d %q %v", i, g.Count, g.State, g.Stack, w.Count, w.State, w.Stack.Funcs())
				}
			}
			if sum != grepTotal {
				t.Errorf("the groups hold %d goroutines, the dump %d", sum, grepTotal)
			}
			if doc.Summary.Total != grepTotal || doc.Summary.Groups != len(want.Groups) || doc.Summary.TopCount != want.Groups[0].Count {
				t.Errorf("stored summary %+v", doc.Summary)
			}
			if cut := goroutineReportDoc(t, ts, "/api/reports/"+up.ReportID+"?n=1"); len(cut.Analysis.Groups) != 1 || cut.Analysis.GroupsAll != len(want.Groups) {
				t.Errorf("n=1 gives %d of %d groups", len(cut.Analysis.Groups), cut.Analysis.GroupsAll)
			}

			pg := goroutinePage(t, ts, up.ReportURL)
			if got := pg.Find("[data-testid=goroutine-total]").Text(); got != strconv.Itoa(grepTotal) {
				t.Errorf("the page says %s goroutines, the dump %d", got, grepTotal)
			}
			if got := pg.Find("[data-testid=goroutine-group-count]").Text(); got != strconv.Itoa(len(want.Groups)) {
				t.Errorf("the page says %s groups, the engine %d", got, len(want.Groups))
			}
			sections := pg.Find("[data-testid=goroutine-group]")
			if sections.Length() != min(len(want.Groups), page.DefaultRows) {
				t.Errorf("%d groups on the page, want %d", sections.Length(), min(len(want.Groups), page.DefaultRows))
			}
			sections.Each(func(i int, sec *goquery.Selection) {
				w := want.Groups[i]
				var frames []string
				sec.Find("[data-testid=frame-func]").Each(func(_ int, f *goquery.Selection) { frames = append(frames, f.Text()) })
				var ids []int64
				for _, id := range strings.Fields(sec.Find("details[data-testid=group-ids] [data-testid=group-id-list]").Text()) {
					n, _ := strconv.ParseInt(id, 10, 64)
					ids = append(ids, n)
				}
				if sec.AttrOr("data-count", "") != strconv.Itoa(w.Count) || sec.Find("[data-testid=group-state]").Text() != w.State ||
					!slices.Equal(frames, w.Stack.Funcs()) || !slices.Equal(ids, w.IDs) {
					t.Errorf("group %d on the page: %s goroutines %q, frames %v, ids %v; the engine says %d %q %v %v", i,
						sec.AttrOr("data-count", ""), sec.Find("[data-testid=group-state]").Text(), frames, ids, w.Count, w.State, w.Stack.Funcs(), w.IDs)
				}
			})

			code, ct, md := ts.get(t, up.ReportURL+".md")
			if code != 200 || !strings.HasPrefix(ct, "text/markdown") || !bytes.Contains(md, []byte(page.Plural(grepTotal, "goroutine")+" in ")) {
				t.Errorf("markdown: %d %s\n%s", code, ct, md)
			}
			if rows := bytes.Count(md, []byte("\n| ")); rows != min(len(want.Groups), 10)+1 {
				t.Errorf("markdown has %d table rows, want a header and %d", rows, min(len(want.Groups), 10))
			}
		})
	}
}

// TestGoroutineErigonLeak checks the real leak of the erigon dump end to end: the
// total line (20161), the largest record (12096) and its function, read with grep,
// on the page, in the JSON, the Markdown and the dashboard line.
func TestGoroutineErigonLeak(t *testing.T) {
	ts := newTestServer(t, Config{})
	const name = "erigon-debug1-20161-goroutines.txt"
	path := fixtures.Path(t, "goroutines", name)
	total := dumpTotalByGrep(t, path)
	largest, fn := largestRecordByGrep(t, path)
	if total != 20161 || largest != 12096 || fn != "github.com/anacrolix/torrent.(*webseedPeer).requester" {
		t.Fatalf("grep reads total %d, largest %d in %q; PROVENANCE.md says 20161, 12096, webseedPeer.requester", total, largest, fn)
	}
	_, up, _ := ts.upload(t, fixture(t, "goroutines", name))
	pg := goroutinePage(t, ts, up.ReportURL)
	first := pg.Find("[data-testid=goroutine-group]").First()
	if c, f := first.Find("[data-testid=group-count]").Text(), first.Find("[data-testid=group-func]").Text(); c != "12096" || f != fn {
		t.Errorf("first group %s × %s", c, f)
	}
	if pg.Find("[data-testid=show-all]").AttrOr("href", "") != up.ReportURL+"?n=all" {
		t.Errorf("show all links to %q", pg.Find("[data-testid=show-all]").AttrOr("href", ""))
	}
	all := goroutinePage(t, ts, up.ReportURL+"?n=all")
	if n := all.Find("[data-testid=goroutine-group]").Length(); n != len(greptest.Output(t, "-E", "^[0-9]+ @", path)) {
		t.Errorf("n=all shows %d groups", n)
	}
	_, _, md := ts.get(t, up.ReportURL+".md")
	if !bytes.Contains(md, []byte("| 12096 |  |  | `"+fn+"` | `github.com/anacrolix/torrent@v1.54.0/webseed-peer.go:123` |")) {
		t.Errorf("markdown lacks the largest group:\n%s", md)
	}
	_, _, home := ts.get(t, "/")
	if !bytes.Contains(home, []byte("20161 goroutines in 168 groups; largest 12096 × "+fn)) {
		t.Error("the dashboard line lacks the totals and the largest group")
	}
}

// largestRecordByGrep reads a debug=1 dump's largest record with grep: its count
// and the first frame of it outside the standard library.
func largestRecordByGrep(t *testing.T, path string) (int, string) {
	t.Helper()
	records := greptest.Output(t, "-A4", "-E", "^[0-9]+ @", path)
	largest, fn := 0, ""
	for i, l := range records {
		n, err := strconv.Atoi(strings.Fields(l + " x")[0])
		if err != nil || !strings.HasSuffix(strings.Fields(l)[1], "@") || n <= largest {
			continue
		}
		largest, fn = n, ""
		for _, frame := range records[i+1:] {
			f := strings.Fields(frame)
			if len(f) < 3 || f[0] != "#" {
				break
			}
			if name := f[2][:strings.LastIndex(f[2], "+")]; strings.HasPrefix(name, "github.com/") {
				fn = name
				break
			}
		}
	}
	return largest, fn
}

// TestGoroutineDiffSnapshots uploads the two goprofnotes debug=1 snapshots: the
// comparison's new and gone groups are the records grep finds in only one file.
func TestGoroutineDiffSnapshots(t *testing.T) {
	ts := newTestServer(t, Config{})
	snap1 := fixture(t, "goroutines", "goprofnotes-snap1-debug1.txt")
	snap2 := fixture(t, "goroutines", "goprofnotes-snap2-debug1.txt")
	p1 := fixtures.Path(t, "goroutines", snap1.name)
	p2 := fixtures.Path(t, "goroutines", snap2.name)
	r1, r2 := greptest.Output(t, "-E", "^[0-9]+ @", p1), greptest.Output(t, "-E", "^[0-9]+ @", p2)
	var wantNew, wantGone []int
	for _, r := range r2 {
		if !slices.Contains(r1, r) {
			n, _ := strconv.Atoi(strings.Fields(r)[0])
			wantNew = append(wantNew, n)
		}
	}
	for _, r := range r1 {
		if !slices.Contains(r2, r) {
			n, _ := strconv.Atoi(strings.Fields(r)[0])
			wantGone = append(wantGone, n)
		}
	}
	if len(wantNew) == 0 {
		t.Fatal("grep finds no new record; the fixtures changed")
	}

	status, up, raw := ts.upload(t, snap1, snap2)
	if status != 201 {
		t.Fatalf("%d %s", status, raw)
	}
	doc := goroutineReportDoc(t, ts, "/api/reports/"+up.ReportID+"?n=all")
	a := doc.Analysis
	if doc.Kind != webgoroutines.ReportKindDiff || a.Mode != "diff" || a.BaseSHA256 != up.Artifacts[0].SHA256 || a.TargetSHA256 != up.Artifacts[1].SHA256 ||
		a.Base == nil || a.Base.Total != dumpTotalByGrep(t, p1) || a.Total != dumpTotalByGrep(t, p2) {
		t.Fatalf("kind %s mode %s base %s target %s totals %+v→%d", doc.Kind, a.Mode, a.BaseSHA256, a.TargetSHA256, a.Base, a.Total)
	}
	var gotNew, gotGone []int
	for i, g := range a.Groups {
		if g.BaseCount == nil || g.Delta == nil || *g.Delta != g.Count-*g.BaseCount {
			t.Fatalf("group %d has no consistent change: %+v", i, g)
		}
		switch {
		case g.New:
			gotNew = append(gotNew, g.Count)
			if i >= len(wantNew) {
				t.Errorf("new group %d comes after an unchanged one", i)
			}
		case g.Gone:
			gotGone = append(gotGone, *g.BaseCount)
		case *g.Delta != 0:
			t.Errorf("group %v changed by %d; the records say new, gone or unchanged", g.Stack, *g.Delta)
		}
	}
	slices.Sort(wantNew)
	slices.Sort(gotNew)
	slices.Sort(wantGone)
	slices.Sort(gotGone)
	if !slices.Equal(gotNew, wantNew) || !slices.Equal(gotGone, wantGone) {
		t.Errorf("new %v gone %v; grep: new %v gone %v", gotNew, gotGone, wantNew, wantGone)
	}

	pg := goroutinePage(t, ts, up.ReportURL)
	pg.Find("[data-testid=goroutine-group]").Each(func(i int, sec *goquery.Selection) {
		g, ch := a.Groups[i], sec.Find("[data-testid=group-change]")
		if sec.AttrOr("data-count", "") != strconv.Itoa(g.Count) || ch.AttrOr("data-base", "") != strconv.Itoa(*g.BaseCount) ||
			ch.AttrOr("data-delta", "") != strconv.Itoa(*g.Delta) || ch.AttrOr("data-gone", "") != strconv.FormatBool(g.Gone) {
			t.Errorf("group %d on the page: %s goroutines, change %q; the JSON says %+v", i, sec.AttrOr("data-count", ""), ch.Text(), g)
		}
	})
	first := pg.Find("[data-testid=goroutine-group]").First()
	if ch := first.Find("[data-testid=group-change]"); ch.AttrOr("data-new", "") != "true" || ch.Text() != "new" {
		t.Errorf("the first group is not marked new: %q", ch.Text())
	}
	if got := pg.Find("[data-testid=goroutine-base-total]").Text(); got != strconv.Itoa(a.Base.Total) {
		t.Errorf("base total on the page: %s", got)
	}
	var modes []string
	pg.Find("[data-testid=mode]").Each(func(_ int, s *goquery.Selection) { modes = append(modes, s.AttrOr("data-mode", "")) })
	if !slices.Equal(modes, []string{snap1.name, snap2.name, "diff"}) {
		t.Errorf("modes %v", modes)
	}
	// Each dump is one click away.
	href := pg.Find("[data-testid=mode]").First().AttrOr("href", "")
	one := goroutineReportDoc(t, ts, "/api/reports/"+strings.TrimPrefix(href, "/r/"))
	if one.Analysis.Mode != "dump" || one.Analysis.TargetSHA256 != up.Artifacts[0].SHA256 || one.Analysis.Base != nil {
		t.Errorf("%s shows %+v", href, one.Analysis)
	}
	_, _, md := ts.get(t, up.ReportURL+".md")
	if !bytes.Contains(md, []byte("→")) || !bytes.Contains(md, []byte("| new |")) || !bytes.Contains(md, []byte("- Base: 10 goroutines")) {
		t.Errorf("diff markdown:\n%s", md)
	}
	if code, _, _ := ts.get(t, up.ReportURL+"?mode=series"); code != 400 {
		t.Errorf("mode=series: %d", code)
	}
	if code, _, _ := ts.get(t, up.ReportURL+"?base=7"); code != 400 {
		t.Errorf("base=7: %d", code)
	}
}

// TestGoroutineDiffOrderAndSeries checks that text dumps, which carry no time, keep
// the upload order (the first is the base), and that three dumps compare the first
// with the last, each dump one click away.
func TestGoroutineDiffOrderAndSeries(t *testing.T) {
	ts := newTestServer(t, Config{})
	d1 := fixture(t, "goroutines", "goprofnotes-snap1-debug2.txt")
	d2 := fixture(t, "goroutines", "goprofnotes-snap2-debug2.txt")
	stack := fixture(t, "goroutines", "goprofnotes-snap2-runtime-stack-all.txt")
	_, rev, _ := ts.upload(t, d2, d1)
	doc := goroutineReportDoc(t, ts, "/api/reports/"+rev.ReportID)
	if doc.Artifacts[0].Name != d2.name || doc.Analysis.BaseSHA256 != rev.Artifacts[0].SHA256 {
		t.Errorf("upload order not kept: %v", doc.Artifacts)
	}
	_, three, raw := ts.upload(t, d1, d2, stack)
	doc = goroutineReportDoc(t, ts, "/api/reports/"+three.ReportID)
	if doc.Kind != webgoroutines.ReportKindDiff || doc.Analysis.BaseSHA256 != three.Artifacts[0].SHA256 || doc.Analysis.TargetSHA256 != three.Artifacts[2].SHA256 ||
		doc.Analysis.Total != dumpTotalByGrep(t, fixtures.Path(t, "goroutines", stack.name)) || doc.Summary.Dumps != 3 {
		t.Fatalf("three dumps: %s %+v", raw, doc.Analysis)
	}
	pg := goroutinePage(t, ts, three.ReportURL)
	if n := pg.Find("[data-testid=mode]").Length(); n != 4 {
		t.Errorf("%d modes, want each of 3 dumps and the diff", n)
	}
	if cur := pg.Find("[data-testid=mode][aria-current=page]").AttrOr("data-mode", ""); cur != "diff" {
		t.Errorf("current mode %q", cur)
	}
	mid := goroutineReportDoc(t, ts, "/api/reports/"+three.ReportID+"?mode=dump&file=1")
	if mid.Analysis.TargetSHA256 != three.Artifacts[1].SHA256 || mid.Analysis.Total != 10 {
		t.Errorf("file=1: %+v", mid.Analysis)
	}
}

// TestGoroutinePanicReport checks that a crash's message and its goroutine come
// first: the gin fatal error fixture, and a real panic of a child process.
func TestGoroutinePanicReport(t *testing.T) {
	ts := newTestServer(t, Config{})
	gin := fixtures.Path(t, "goroutines", "gin-fatal-error-unexpected-signal-darwin.txt")
	message := strings.TrimPrefix(greptest.Output(t, "-m1", "^fatal error: ", gin)[0], "fatal error: ")
	_, up, _ := ts.upload(t, fixture(t, "goroutines", filepath.Base(gin)))
	pg := goroutinePage(t, ts, up.ReportURL)
	checkPanicFirst(t, pg, "fatal error", message, 1)

	out := panicChild(t)
	status, up, raw := ts.upload(t, file{name: "panic.txt", data: out})
	if status != 201 {
		t.Fatalf("%d %s", status, raw)
	}
	pg = goroutinePage(t, ts, up.ReportURL)
	panicking := grepPanickingGoroutine(t, out)
	checkPanicFirst(t, pg, "panic", panicChildMessage, panicking)
	blocked := pg.Find("[data-testid=goroutine-group]").FilterFunction(func(_ int, s *goquery.Selection) bool {
		return strings.Contains(s.Find("[data-testid=group-stack]").Text(), "panicChildBlocked")
	})
	if blocked.Length() != 1 || blocked.AttrOr("data-count", "") != strconv.Itoa(panicChildBlocked) {
		t.Errorf("the %d blocked goroutines are in %d groups (count %s)", panicChildBlocked, blocked.Length(), blocked.AttrOr("data-count", ""))
	}
	_, _, md := ts.get(t, up.ReportURL+".md")
	if !bytes.Contains(md, []byte("- panic:\n  > ")) || bytes.Contains(md, []byte("<script>")) {
		t.Errorf("panic markdown:\n%s", md)
	}
	_, _, home := ts.get(t, "/")
	if !bytes.Contains(home, []byte("panic: leakui test panic")) || bytes.Contains(home, []byte("<script>alert")) {
		t.Error("the dashboard line lacks the panic, or shows its markup")
	}
}

// checkPanicFirst checks that the crash block precedes the groups and that the
// first group holds the crashing goroutine.
func checkPanicFirst(t *testing.T, pg *goquery.Document, rk, message string, goroutine int64) {
	t.Helper()
	html, _ := pg.Find("main").Html()
	if i, j := strings.Index(html, `data-testid="goroutine-panic"`), strings.Index(html, `data-testid="goroutine-group"`); i < 0 || j < 0 || i > j {
		t.Errorf("the crash (at %d) does not come before the groups (at %d)", i, j)
	}
	p := pg.Find("[data-testid=goroutine-panic]")
	if p.Find("[data-testid=panic-kind]").Text() != rk || page.FirstLine(p.Find("[data-testid=panic-message]").Text()) != message {
		t.Errorf("crash %q %q; want %q %q", p.Find("[data-testid=panic-kind]").Text(), p.Find("[data-testid=panic-message]").Text(), rk, message)
	}
	if got := p.Find("[data-testid=panic-goroutine]").Text(); got != strconv.FormatInt(goroutine, 10) {
		t.Errorf("crash goroutine %s, want %d", got, goroutine)
	}
	first := pg.Find("[data-testid=goroutine-group]").First()
	ids := strings.Fields(first.Find("[data-testid=group-id-list]").Text())
	if first.Find("[data-testid=group-panicking]").Length() != 1 || !slices.Contains(ids, strconv.FormatInt(goroutine, 10)) {
		t.Errorf("the first group (ids %v) is not the panicking one", ids)
	}
}

// The child's panic: a message with markup in it, and goroutines blocked in one
// place, so the dump has a group of known size.
const (
	panicChildEnv     = "LEAKUI_WEB_PANIC_CHILD"
	panicChildMessage = `leakui test panic <script>alert("x")</script>`
	panicChildBlocked = 7
)

// TestGoroutinePanicChild is the child of panicChild: it only runs with
// LEAKUI_WEB_PANIC_CHILD set, and dies of a panic in a goroutine of its own.
func TestGoroutinePanicChild(t *testing.T) {
	if os.Getenv(panicChildEnv) == "" {
		t.Skip("the child of TestGoroutinePanicReport")
	}
	block := make(chan struct{})
	started := make(chan struct{})
	for range panicChildBlocked {
		go panicChildBlockedFunc(block, started)
		<-started
	}
	// Wait until every one of them is parked on the receive, not runnable on its way.
	parked := "[chan receive]:\ngithub.com/leakui/leakui/web.panicChildBlockedFunc("
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if strings.Count(string(buf[:runtime.Stack(buf, true)]), parked) == panicChildBlocked {
			break
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		panic(panicChildMessage)
	}()
	<-done
}

//go:noinline
func panicChildBlockedFunc(block, started chan struct{}) {
	started <- struct{}{}
	<-block
}

// panicChild runs the test binary as a child that panics and returns its stderr.
func panicChild(t *testing.T) []byte {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), exe, "-test.run=^TestGoroutinePanicChild$")
	cmd.Env = append(os.Environ(), panicChildEnv+"=1", "GOTRACEBACK=all")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("the child ended with %v, want exit status 2:\n%s", err, stderr.Bytes())
	}
	return stderr.Bytes()
}

// grepPanickingGoroutine finds the id of the first goroutine after the panic line,
// the way a reader of the dump does.
func grepPanickingGoroutine(t *testing.T, out []byte) int64 {
	t.Helper()
	path := filepath.Join(t.TempDir(), "panic.txt")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	headers := greptest.Output(t, "-m1", "-oE", "^goroutine [0-9]+ ", path)
	if len(headers) != 1 {
		t.Fatalf("no goroutine in the child's output:\n%s", out)
	}
	id, _ := strconv.ParseInt(strings.Fields(headers[0])[1], 10, 64)
	return id
}

// TestGoroutineUploadErrors checks the refusals: status, message, nothing stored.
func TestGoroutineUploadErrors(t *testing.T) {
	binary := make([]byte, 4096)
	for i := range binary {
		binary[i] = byte(i*7 + i/13)
	}
	for _, tc := range []struct {
		name   string
		files  []file
		status int
		msg    string
	}{
		{"binary named as a dump", []file{{"goroutines.txt", binary}}, 415, "binary data"},
		{"a total line and binary garbage", []file{{"goroutines.txt", append([]byte("goroutine profile: total 5\n"), binary...)}}, 422, "malformed"},
		{"a dump with a heap profile", []file{fixture(t, "goroutines", "goleak-http-debug2-go121.txt"), fixture(t, "pprof", "flameshow-heap.pb.gz")}, 422, "upload files of one kind together"},
		{"a good dump with a bad one", []file{fixture(t, "goroutines", "goleak-http-debug2-go121.txt"), {"bad.txt", append([]byte("goroutine profile: total 5\n"), binary...)}}, 422, "bad.txt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestServer(t, Config{})
			status, _, raw := ts.upload(t, tc.files...)
			if status != tc.status || !strings.Contains(raw, tc.msg) {
				t.Errorf("status %d %s; want %d containing %q", status, raw, tc.status, tc.msg)
			}
			if a, c, r, err := ts.db.Counts(t.Context()); err != nil || a+c+r != 0 {
				t.Errorf("a refused upload stored artifacts=%d chunks=%d reports=%d (%v)", a, c, r, err)
			}
		})
	}
}

// TestGoroutineProfileView checks the goroutine groups view of goroutine protos:
// the totals against the debug=1 twins' total lines, the comparison of the two
// snapshots, the filters, and a refusal on a heap profile.
func TestGoroutineProfileView(t *testing.T) {
	ts := newTestServer(t, Config{})
	pb1 := fixture(t, "pprof", "goprofnotes-goroutine-snap1-debug0.pb.gz")
	pb2 := fixture(t, "pprof", "goprofnotes-goroutine-snap2-debug0.pb.gz")
	total1 := dumpTotalByGrep(t, fixtures.Path(t, "goroutines", "goprofnotes-snap1-debug1.txt"))
	total2 := dumpTotalByGrep(t, fixtures.Path(t, "goroutines", "goprofnotes-snap2-debug1.txt"))
	_, one, _ := ts.upload(t, pb1)
	pg := goroutinePage(t, ts, one.ReportURL)
	link := pg.Find(`[data-testid=view][data-view="goroutine groups"]`)
	if link.Length() != 1 || link.AttrOr("href", "") != one.ReportURL+"?view=goroutines" {
		t.Fatalf("no goroutine groups view link: %q", link.AttrOr("href", ""))
	}
	pg = goroutinePage(t, ts, one.ReportURL+"?view=goroutines")
	if got := pg.Find("[data-testid=goroutine-total]").Text(); got != strconv.Itoa(total1) {
		t.Errorf("the proto's groups hold %s goroutines, its debug=1 twin says %d", got, total1)
	}
	if pg.Find(`[data-testid=view][data-view="goroutine groups"][aria-current=page]`).Length() != 1 || pg.Find("[data-testid=top-table]").Length() != 0 {
		t.Error("the view is not marked current, or the top table is still there")
	}
	doc := goroutineReportDoc(t, ts, "/api/reports/"+one.ReportID+"?view=goroutines")
	want := goroutines.NewReport(parseDumpFile(t, fixtures.Path(t, "pprof", pb1.name)), nil)
	if doc.Analysis.Total != total1 || doc.Analysis.Format != "profile.proto" || len(doc.Analysis.Groups) != len(want.Groups) {
		t.Errorf("JSON: %d goroutines in %d groups; want %d in %d", doc.Analysis.Total, len(doc.Analysis.Groups), total1, len(want.Groups))
	}
	// Focus keeps the groups with a matching frame.
	focused := goroutineReportDoc(t, ts, "/api/reports/"+one.ReportID+"?view=goroutines&f=time%5C.Sleep")
	wantSleep := 0
	for _, g := range want.Groups {
		if slices.Contains(g.Stack.Funcs(), "time.Sleep") {
			wantSleep++
		}
	}
	if len(focused.Analysis.Groups) != wantSleep || wantSleep == 0 {
		t.Errorf("focus=time.Sleep keeps %d groups, want %d", len(focused.Analysis.Groups), wantSleep)
	}
	none := goroutineReportDoc(t, ts, "/api/reports/"+one.ReportID+"?view=goroutines&f=no_such_frame")
	if len(none.Analysis.Groups) != 0 || len(none.Notices) != 1 || !strings.Contains(none.Notices[0], "matched no goroutine group") {
		t.Errorf("a focus matching nothing: %d groups, notices %v", len(none.Analysis.Groups), none.Notices)
	}

	_, two, _ := ts.upload(t, pb2, pb1) // ordered by the profiles' own time
	diff := goroutineReportDoc(t, ts, "/api/reports/"+two.ReportID+"?view=goroutines")
	if diff.Analysis.Mode != "diff" || diff.Analysis.Base == nil || diff.Analysis.Base.Total != total1 || diff.Analysis.Total != total2 ||
		diff.Analysis.BaseSHA256 != one.Artifacts[0].SHA256 {
		t.Errorf("diff view: mode %s base %+v total %d", diff.Analysis.Mode, diff.Analysis.Base, diff.Analysis.Total)
	}
	compared := goroutines.NewReport(parseDumpFile(t, fixtures.Path(t, "pprof", pb2.name)), parseDumpFile(t, fixtures.Path(t, "pprof", pb1.name)))
	for i, g := range diff.Analysis.Groups {
		if c := compared.Groups[i].Change; g.Delta == nil || *g.Delta != c.Delta || g.New != c.New || g.Gone != c.Gone {
			t.Errorf("group %d: %+v, the engine says %+v", i, g, c)
		}
	}

	_, heap, _ := ts.upload(t, fixture(t, "pprof", "flameshow-heap.pb.gz"))
	hp := goroutinePage(t, ts, heap.ReportURL)
	if hp.Find(`[data-testid=view][data-view="goroutine groups"]`).Length() != 0 {
		t.Error("a heap profile offers goroutine groups")
	}
	if code, _, body := ts.get(t, "/api/reports/"+heap.ReportID+"?view=goroutines"); code != 400 || !bytes.Contains(body, []byte("does not apply")) {
		t.Errorf("heap view=goroutines: %d %s", code, body)
	}
	if code, _, body := ts.get(t, "/api/reports/"+heap.ReportID+"?view=pie"); code != 400 || !bytes.Contains(body, []byte("goroutines")) {
		t.Errorf("view=pie: %d %s", code, body)
	}
}

// TestGoroutineHostileNames uploads a dump whose function and file names carry
// markup, quotes, pipes, backticks and U+2028: the page shows them as text, the
// JSON round-trips them, the Markdown escapes them.
func TestGoroutineHostileNames(t *testing.T) {
	const fn = "main.(*T).<script>alert(\"x\")</script>|`x`'\u2028"
	const srcFile = "/src/a|b<i>.go"
	var dump strings.Builder
	for id := 1; id <= 3; id++ {
		fmt.Fprintf(&dump, "goroutine %d [chan receive, %d minutes]:\n%s(0x1)\n\t%s:3 +0x1\ncreated by main.main in goroutine 1\n\t/src/main.go:5 +0x2\n\n", id, id, fn, srcFile)
	}
	ts := newTestServer(t, Config{})
	status, up, raw := ts.upload(t, file{name: "hostile.txt", data: []byte(dump.String())})
	if status != 201 {
		t.Fatalf("%d %s", status, raw)
	}
	pg := goroutinePage(t, ts, up.ReportURL)
	first := pg.Find("[data-testid=goroutine-group]").First()
	if first.Find("[data-testid=group-func]").Text() != fn || first.Find("[data-testid=frame-location]").Text() != srcFile+":3" ||
		first.AttrOr("data-count", "") != "3" || first.Find("[data-testid=group-wait]").Text() != "1–3 minutes" {
		t.Errorf("group: %q at %q, %s goroutines, wait %q", first.Find("[data-testid=group-func]").Text(),
			first.Find("[data-testid=frame-location]").Text(), first.AttrOr("data-count", ""), first.Find("[data-testid=group-wait]").Text())
	}
	if pg.Find("script").Length() != len(ts.srv.page(view.Page{}).Scripts) || pg.Find("i").Length() != 0 {
		t.Error("markup from the dump became elements")
	}
	doc := goroutineReportDoc(t, ts, "/api/reports/"+up.ReportID)
	if g := doc.Analysis.Groups; len(g) != 1 || g[0].Stack[0] != fn {
		t.Errorf("JSON groups %+v", g)
	}
	_, _, md := ts.get(t, up.ReportURL+".md")
	// Outside code spans (where Markdown shows markup as text) no markup is
	// left. The name keeps its backticks inside a longer fence (they used to
	// become quotes), so the spans are found as CommonMark finds them, not by
	// splitting at every backtick.
	if strings.ContainsAny(markdown.Prose(string(md)), "<>") || bytes.ContainsRune(md, '\u2028') {
		t.Errorf("the markdown carries markup or a line separator outside code spans:\n%s", md)
	}
	if span := "``main.(*T).<script>alert(\"x\")</script>\\|`x`' ``"; !bytes.Contains(md, []byte(span)) {
		t.Errorf("the markdown lacks the name as the code span %s:\n%s", span, md)
	}
	for _, line := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(line, "| 3 |") {
			if cells := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|"); cells != 6 {
				t.Errorf("the row %q has %d cell borders; a pipe from a name split it", line, cells)
			}
			return
		}
	}
	t.Errorf("no row for the group:\n%s", md)
}
