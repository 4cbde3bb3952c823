package view

import (
	"strings"
	"testing"
)

// hostileGroups is a comparison whose every string from a dump is hostile.
func hostileGroups() GoroutineGroups {
	return GoroutineGroups{
		Total: 12, Format: hostile, Declared: 13, Truncated: true,
		Panic: &GoroutinePanic{Kind: "panic", Message: hostile + "\n[recovered]\n\tpanic: " + hostile, Signal: hostile, Goroutine: 7},
		Base:  &GoroutineBase{BaseName: hostile, TargetName: "b.txt", BaseTotal: 5, Change: "+7", Grew: true, NewOrGrew: 1, Gone: 1},
		Groups: []GoroutineGroupRow{
			{Rank: 1, Count: 1, Title: hostile, State: hostile, Panicking: true, IDs: "7", IDCount: 1,
				Frames:    []GoroutineFrameRow{{Func: hostile, Location: hostile}, {Func: "...additional frames elided...", Elided: true}},
				CreatedBy: &GoroutineFrameRow{Func: hostile, Location: "/x.go:1"}, Creators: "in goroutine 1",
				Labels: []Pair{{Label: hostile, Value: hostile}},
				Change: &GoroutineChangeRow{Base: 0, Delta: 1, New: true, Text: "new"}},
			{Rank: 2, Count: 11, Title: "main.worker", State: "chan receive", Wait: "1–5 minutes", IDs: "8 9 10 11 12 13 14 15 16 17 18", IDCount: 11,
				Frames: []GoroutineFrameRow{{Func: "main.worker", Location: "/src/main.go:42"}},
				Change: &GoroutineChangeRow{Base: 5, Delta: 6, Text: "+6 from 5"}},
		},
		Count: 2, All: 3, ShowAll: "/r/abc?n=all",
		Notices: []string{hostile},
	}
}

func TestGoroutineGroupsViewEscapesTheDump(t *testing.T) {
	doc := render(t, GoroutineGroupsView(hostileGroups()))
	if n := doc.Find("script").Length(); n != 1 {
		t.Errorf("%d script elements; only the layout's own may exist", n)
	}
	if doc.Find("[onmouseover]").Length() != 0 {
		t.Error("an element got an onmouseover attribute from a name")
	}
	first := doc.Find("[data-testid=goroutine-group]").First()
	for sel, want := range map[string]string{
		"[data-testid=group-func]":      hostile,
		"[data-testid=group-state]":     hostile,
		"[data-testid=frame-func]":      hostile,
		"[data-testid=frame-location]":  hostile,
		"[data-testid=created-func]":    hostile,
		"[data-testid=group-label]":     hostile + "=" + hostile,
		"[data-testid=group-change]":    "new",
		"[data-testid=group-id-list]":   "7",
		"[data-testid=group-panicking]": "panicking",
	} {
		if got := first.Find(sel).First().Text(); got != want {
			t.Errorf("%s = %q, want %q", sel, got, want)
		}
	}
	// U+2028 survives as text (it must not end up inside a script either).
	if !strings.ContainsRune(first.Find("[data-testid=group-func]").Text(), '\u2028') {
		t.Error("the line separator was lost")
	}
	p := doc.Find("[data-testid=goroutine-panic]")
	if got := p.Find("[data-testid=panic-message]").Text(); got != hostile+"\n[recovered]\n\tpanic: "+hostile {
		t.Errorf("panic message %q", got)
	}
	if p.Find("[data-testid=panic-signal]").Text() != hostile || p.Find("[data-testid=panic-goroutine]").Text() != "7" {
		t.Error("the signal or the panicking goroutine is missing")
	}
	if doc.Find("[data-testid=goroutine-format]").Text() != hostile {
		t.Error("the format is not shown as text")
	}
	if n := doc.Find("[data-testid=notice]").Length(); n != 3 {
		t.Errorf("%d notices; want the declared total, the truncation and the given one", n)
	}
	if !strings.Contains(doc.Find("[data-testid=goroutine-groups]").Parent().Text(), hostile) {
		t.Error("the base name is not shown")
	}
}

func TestGoroutineGroupsViewStructure(t *testing.T) {
	doc := render(t, GoroutineGroupsView(hostileGroups()))
	// The panic comes before the groups.
	html, _ := doc.Find("main").Html()
	if i, j := strings.Index(html, `data-testid="goroutine-panic"`), strings.Index(html, `data-testid="goroutine-groups"`); i < 0 || i > j {
		t.Error("the crash does not come first")
	}
	groups := doc.Find("[data-testid=goroutine-group]")
	if groups.Length() != 2 || groups.Eq(1).AttrOr("data-count", "") != "11" || groups.Eq(1).AttrOr("data-rank", "") != "2" {
		t.Fatalf("groups: %d", groups.Length())
	}
	second := groups.Eq(1)
	ids := second.Find("details[data-testid=group-ids]")
	if ids.Length() != 1 || ids.AttrOr("open", "none") != "none" || ids.Find("summary").Text() != "11 goroutine ids" {
		t.Errorf("the ids are not behind a closed disclosure: %q", ids.Find("summary").Text())
	}
	if second.Find("[data-testid=group-wait]").Text() != "1–5 minutes" {
		t.Error("the wait range is missing")
	}
	if ch := second.Find("[data-testid=group-change]"); ch.AttrOr("data-base", "") != "5" || ch.AttrOr("data-delta", "") != "6" || !ch.HasClass("bad") {
		t.Error("the growth is not marked")
	}
	if second.Find("[data-testid=group-created-by]").Length() != 0 {
		t.Error("a group without a creator shows one")
	}
	if groups.First().Find("li.elided").Length() != 1 {
		t.Error("the elided marker is not marked")
	}
	if href := doc.Find("[data-testid=show-all]").AttrOr("href", ""); href != "/r/abc?n=all" {
		t.Errorf("show all: %q", href)
	}
	if !strings.Contains(doc.Find("[data-testid=goroutine-count]").Text(), "Showing 2 of 3 groups.") {
		t.Errorf("count line %q", doc.Find("[data-testid=goroutine-count]").Text())
	}
	// A group without ids (debug=1) has no disclosure; a dump without a crash no panic block.
	doc = render(t, GoroutineGroupsView(GoroutineGroups{Total: 3, Declared: 3, All: 1, Count: 1,
		Groups: []GoroutineGroupRow{{Rank: 1, Count: 3, Title: "f", Frames: []GoroutineFrameRow{{Func: "f"}}}}}))
	if doc.Find("[data-testid=group-ids]").Length() != 0 || doc.Find("[data-testid=goroutine-panic]").Length() != 0 ||
		doc.Find("[data-testid=notice]").Length() != 0 || doc.Find("[data-testid=frame-location]").Length() != 0 {
		t.Error("a debug=1 group shows ids, a crash, a notice or an empty location")
	}
}

func TestGoroutineReportPage(t *testing.T) {
	page := GoroutineReport{ID: "abc", Title: hostile, Permalink: "/r/abc",
		Files: []FileInfo{{Name: hostile, Kind: "goroutine dump (debug=1)", SHA256: "f5be", Download: "/a/f5be"}},
		Modes: []Link{{Label: hostile, URL: "/r/abc?mode=dump"}, {Label: "diff", URL: "/r/abc", Current: true}},
		Links: []Link{{Label: "JSON", URL: "/api/reports/abc"}}, Groups: hostileGroups()}
	doc := render(t, GoroutineReportPage(page))
	if doc.Find("[data-testid=report-title]").Text() != hostile || doc.Find("[data-testid=file-name]").Text() != hostile {
		t.Error("the title or the file name is not text")
	}
	if cur := doc.Find("[data-testid=mode][aria-current=page]"); cur.Length() != 1 || cur.AttrOr("data-mode", "") != "diff" {
		t.Error("the current mode is not marked")
	}
	if doc.Find("[data-testid=mode]").First().AttrOr("data-mode", "") != hostile {
		t.Error("a hostile file name did not survive as an attribute value")
	}
	if doc.Find("script").Length() != 1 || doc.Find("[onmouseover]").Length() != 0 {
		t.Error("markup from the dump became elements")
	}
}
