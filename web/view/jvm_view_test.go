package view

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/leakui/leakui/internal/fixtures"
)

// jvmHPUXBytes returns the bytes of the HP-UX dump's date that are not UTF-8 (EUC-KR
// Korean), as the file has them.
func jvmHPUXBytes(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(fixtures.Path(t, "jvm", "tda-threaddump-hpux-jdk15-jeus-large.log"))
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(raw, []byte("Full thread dump  ["))
	end := bytes.IndexByte(raw[start:], ']')
	s := string(raw[start+len("Full thread dump  [") : start+end])
	if strings.ToValidUTF8(s, "") == s {
		t.Fatalf("the HP-UX date %q is valid UTF-8; the fixture changed", s)
	}
	return s
}

// jvmHostileNames are names a dump can hold: markup, quotes, a line separator that
// breaks JavaScript strings, and bytes that are not UTF-8.
func jvmHostileNames(t *testing.T) []string {
	return []string{hostile, `"quoted" & 'single' <b>bold</b>`, "line\u2028separator\u2029", "Thread-" + jvmHPUXBytes(t) + "-1"}
}

// jvmCheckNoInjection fails when rendered names became markup: a script, an event
// handler or an inline style (which the CSP forbids) anywhere.
func jvmCheckNoInjection(t *testing.T, doc *goquery.Document) {
	t.Helper()
	if n := doc.Find("script").Length(); n != 1 {
		t.Errorf("%d script elements; only the layout's own may exist", n)
	}
	if doc.Find("[onmouseover]").Length() != 0 || doc.Find("b").Length() != 0 {
		t.Error("a name became markup")
	}
	if doc.Find("[style]").Length() != 0 || doc.Find("style").Length() != 0 {
		t.Error("an inline style was rendered; the CSP forbids them")
	}
}

// jvmAsText is how the HTML parser reads a name back. Bytes that are not UTF-8 stay as
// they are: the view renders text as given and only has to keep it inert (the JVM
// parsers turn such bytes into U+FFFD before a model is built; the web tests check
// that a page of the HP-UX dump is valid UTF-8).
func jvmAsText(s string) string { return s }

func TestJavaHistogramPagesEscapeNames(t *testing.T) {
	for _, name := range jvmHostileNames(t) {
		page := JVMHistogramPage{
			Header: JVMHeader{Title: name, Permalink: "/r/x", Files: []FileInfo{{Name: name}}, Meta: []Pair{{Label: "Layout", Value: name}},
				Headline: name, Notices: []string{name}},
			Figures:    []JVMFigure{{Label: name, Value: "1", Key: "total-bytes"}},
			TotalCheck: name, TotalOK: true,
			Table: JVMClassTable{By: "bytes", Count: 2, All: 3, ShowAll: "/r/x?n=all", Rows: []JVMClassRow{
				{Rank: 1, Name: name, Display: name, Module: name, BytesValue: 10, InstancesValue: 1, BarPct: 100},
				{Rank: 2, Name: "java.lang.String", BytesValue: 5, InstancesValue: 2, BarPct: 50},
			}},
			Snapshots: &JVMSnapshotTable{What: "histograms", Totals: []string{"bytes"}, Rows: []JVMSnapshotRow{{Number: 1, File: name, Values: []string{name}, Base: true}, {Number: 2, File: "b", Target: true}}},
		}
		doc := render(t, JVMHistogramPageView(page))
		jvmCheckNoInjection(t, doc)
		rows := doc.Find("[data-testid=class-row]")
		if rows.Length() != 2 {
			t.Fatalf("%q: %d rows", name, rows.Length())
		}
		if got := rows.First().Find("[data-testid=class-name]").Text(); got != jvmAsText(name) {
			t.Errorf("class name %q, want %q", got, jvmAsText(name))
		}
		if got := doc.Find("[data-testid=report-title]").Text(); got != jvmAsText(name) {
			t.Errorf("title %q", got)
		}
		if doc.Find("[data-testid=show-all]").AttrOr("href", "") != "/r/x?n=all" || doc.Find("[data-testid=snapshot]").Length() != 2 {
			t.Error("show all or the snapshot table is missing")
		}

		diff := JVMHistogramDiffPage{Header: page.Header, Figures: page.Figures,
			Suspects: JVMChangeTable{ID: "suspects", Title: name, Note: name, By: "instances", Count: 1, All: 1,
				Rows: []JVMChangeRow{{Rank: 1, Name: name, Display: name, InstancesValue: 1727, BytesValue: 262504, InstancesGrew: true, BytesGrew: true, New: true}}},
			ByBytes: JVMChangeTable{ID: "grown-bytes", Title: "Growth in bytes", By: "bytes"},
		}
		doc = render(t, JVMHistogramDiffPageView(diff))
		jvmCheckNoInjection(t, doc)
		row := doc.Find("[data-testid=suspects] [data-testid=change-row]")
		if row.Length() != 1 || row.Find("[data-testid=class-name]").Text() != jvmAsText(name) || row.AttrOr("data-instances", "") != "1727" {
			t.Errorf("suspect row %q", row.Find("[data-testid=class-name]").Text())
		}
		if doc.Find("[data-testid=grown-bytes] [data-testid=empty]").Length() != 1 {
			t.Error("an empty table does not say so")
		}
	}
}

func TestJavaThreadsPageEscapesNames(t *testing.T) {
	for _, name := range jvmHostileNames(t) {
		group := JVMThreadGroupView{Count: 3, State: name, Daemon: "daemon", Names: []Pair{{Label: name, Value: "3"}},
			Locks: []string{"locked " + name}, TopFrame: "at " + name, Stack: []string{name, "java.lang.Thread.run(Thread.java:748)"}}
		page := JVMThreadsPage{
			Header:    JVMHeader{Title: name, Permalink: "/r/x", Meta: []Pair{{Label: "JVM", Value: name}}, Headline: name, Alarm: true},
			Deadlocks: []JVMDeadlockView{{Threads: []JVMDeadlockThreadView{{Name: name, Waiting: name, HeldBy: name}}}},
			Diff: &JVMThreadDiffView{BaseName: name, TargetName: name, Grown: []JVMThreadGroupView{group}, GrownAll: 1,
				Names: []JVMBar{{Label: name, Count: "3 → 168", Value: 168, Change: "+165", Grew: true, BarPct: 100}}},
			States: []JVMBar{{Label: name, Count: "3", Value: 3, BarPct: 100}},
			Names:  []JVMBar{{Label: name, Count: "3", Value: 3, BarPct: 100}}, NamesAll: 1,
			Groups: []JVMThreadGroupView{group, {Count: 1, State: "RUNNABLE", Daemon: "no", Deadlocked: true}}, Count: 2, All: 2,
		}
		doc := render(t, JVMThreadsPageView(page))
		jvmCheckNoInjection(t, doc)
		if got := doc.Find("[data-testid=deadlock-thread-name]").Text(); got != jvmAsText(name) {
			t.Errorf("deadlock thread %q", got)
		}
		g := doc.Find("[data-testid=groups] [data-testid=group]")
		if g.Length() != 2 || g.First().Find("[data-testid=group-name]").Length() != 1 || g.First().Find("[data-testid=group-stack] li").First().Text() != jvmAsText(name) {
			t.Errorf("groups: %d", g.Length())
		}
		if !strings.HasPrefix(g.First().Find("[data-testid=group-name]").Text(), jvmAsText(name)) {
			t.Errorf("group name %q", g.First().Find("[data-testid=group-name]").Text())
		}
		if g.Eq(1).AttrOr("data-deadlocked", "") != "true" {
			t.Error("the deadlocked group is not marked")
		}
		if got := doc.Find("[data-testid=name-changes-row] [data-testid=label]").Text(); got != jvmAsText(name) {
			t.Errorf("name change %q", got)
		}
		if doc.Find("[data-testid=headline]").HasClass("error") != true {
			t.Error("an alarming headline is not shown as an error")
		}
	}
}

func TestJavaNMTPageEscapesNames(t *testing.T) {
	for _, name := range jvmHostileNames(t) {
		page := JVMNMTPage{
			Header: JVMHeader{Title: name, Permalink: "/r/x"},
			Leak:   &JVMNativeLeakView{Cause: "native-allocations", Message: name},
			Chart: JVMNMTChart{Width: 960, Height: 60, Diff: true, Legend: []Pair{{Label: name, Value: "#2457d6"}},
				Bars: []JVMNMTBar{{Name: name, Y: "4", TextY: "17", BaseY: "22", ReservedW: "600", CommittedW: "300", BaseW: "10", ValueX: "836", Value: name, Title: name, CommittedFill: "#c62828"}}},
			Categories: []JVMNMTRow{{Name: name, Committed: "1.0 GB", CommittedValue: 1 << 30}},
			Changes:    []JVMNMTChangeRow{{Name: name, Change: "+1.2 GB", Grew: true, ChangeValue: 1 << 30}},
		}
		doc := render(t, JVMNMTPageView(page))
		jvmCheckNoInjection(t, doc)
		bar := doc.Find("[data-testid=nmt-bar]")
		if bar.Length() != 1 || bar.AttrOr("data-name", "") != jvmAsText(name) || bar.Find("title").Text() != jvmAsText(name) {
			t.Errorf("bar name %q title %q", bar.AttrOr("data-name", ""), bar.Find("title").Text())
		}
		if w := bar.Find("[data-testid=nmt-committed]").AttrOr("width", ""); w != "300" {
			t.Errorf("committed bar width %q", w)
		}
		if doc.Find("[data-testid=nmt-base]").Length() != 1 {
			t.Error("the diff chart lacks the base bar")
		}
		if got := doc.Find("[data-testid=native-leak-message]").Text(); got != jvmAsText(name) {
			t.Errorf("leak message %q", got)
		}
		if got := doc.Find("[data-testid=nmt-category] [data-testid=category]").Text(); got != jvmAsText(name) {
			t.Errorf("category %q", got)
		}
	}
}
