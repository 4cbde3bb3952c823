package profiles

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/leakui/leakui/analyze/pprof"
)

// TestFlameLabelShortensAsPprof: a label is the first of pprof's display
// names for the frame that fits (TestDisplayNamesEqualPprofFlameGraph anchors
// them to go tool pprof's flame graph), else the last cut from the left, never
// longer than its box.
func TestFlameLabelShortensAsPprof(t *testing.T) {
	for _, c := range []struct {
		name  string
		chars int
		want  string
	}{
		{"github.com/dgraph-io/badger/v3.(*DB).Open", 100, "badger.(*DB).Open"},
		{"github.com/dgraph-io/badger/v3.(*DB).Open", 17, "badger.(*DB).Open"},
		{"github.com/dgraph-io/badger/v3.(*DB).Open", 16, "(*DB).Open"},
		{"github.com/dgraph-io/badger/v3.(*DB).Open", 9, "Open"},
		{"github.com/dgraph-io/badger/v3.(*DB).Open", 4, "Open"},
		{"github.com/ledgerwatch/erigon/eth/stagedsync/stages.StageLoop", 20, "stages.StageLoop"},
		{"github.com/ledgerwatch/erigon/eth/stagedsync/stages.StageLoop", 12, "StageLoop"},
		{"github.com/ledgerwatch/erigon/eth/stagedsync/stages.StageLoop", 5, "…Loop"},
		{"mozilla::dom::Element::SetAttr<nsAtom>", 30, "Element::SetAttr<nsAtom>"},
		{"mozilla::dom::Element::SetAttr<nsAtom>", 20, "SetAttr<nsAtom>"},
		{"<alloc::alloc::Global as core::alloc::Allocator>::allocate", 40, "alloc::Allocator>::allocate"},
		{"java.util.concurrent.ThreadPoolExecutor$Worker.run", 40, "ThreadPoolExecutor$Worker.run"},
		{"runtime.mallocgc", 2, ""},
	} {
		if got := flameLabel(c.name, c.chars); got != c.want {
			t.Errorf("flameLabel(%q, %d) = %q, want %q", c.name, c.chars, got, c.want)
		}
	}
	for _, n := range []string{"github.com/dgraph-io/badger/v3.(*DB).Open", "runtime.mallocgc", "main.main", "ünïcödé/päth.Fünc", "[libc.so.6]", "a/b/c/d/e/f/g/h.i", "a::b::c"} {
		for chars := 0; chars < 60; chars++ {
			checkLabel(t, n, chars)
		}
	}
}

// checkLabel: the label fits its box and is the end of the short name.
func checkLabel(t *testing.T, name string, chars int) {
	t.Helper()
	l := flameLabel(name, chars)
	if utf8.RuneCountInString(l) > chars {
		t.Fatalf("flameLabel(%q, %d) = %q is too long", name, chars, l)
	}
	if l != "" && !strings.HasSuffix(pprof.ShortName(name), strings.TrimPrefix(l, "…")) {
		t.Fatalf("flameLabel(%q, %d) = %q drops the end", name, chars, l)
	}
}

// FuzzFlameLabel: a label fits its box and keeps the end of the short name.
func FuzzFlameLabel(f *testing.F) {
	f.Add("github.com/dgraph-io/badger/v3.(*DB).Open", 22)
	f.Add("a/b/c", 3)
	f.Add("ü/ö", 2)
	f.Add("a::b.c", 2)
	f.Fuzz(func(t *testing.T, name string, chars int) {
		if chars < 0 || chars > 1000 || !utf8.ValidString(name) {
			return
		}
		checkLabel(t, name, chars)
	})
}
