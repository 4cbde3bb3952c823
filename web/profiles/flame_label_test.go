package profiles

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestFlameLabelKeepsTheFunctionName: a label is cut from the left, at the
// package path's slashes first, never longer than its box.
func TestFlameLabelKeepsTheFunctionName(t *testing.T) {
	const name = "github.com/dgraph-io/badger/v3.(*DB).Open"
	for _, c := range []struct {
		chars int
		want  string
	}{
		{100, name},
		{len(name), name},
		{len(name) - 1, "…/dgraph-io/badger/v3.(*DB).Open"},
		{22, "…/badger/v3.(*DB).Open"},
		{21, "…/v3.(*DB).Open"},
		{15, "…/v3.(*DB).Open"},
		{14, "…v3.(*DB).Open"},
		{5, "…Open"},
		{2, ""},
	} {
		if got := flameLabel(name, c.chars); got != c.want {
			t.Errorf("flameLabel(%d) = %q, want %q", c.chars, got, c.want)
		}
	}
	for _, n := range []string{name, "runtime.mallocgc", "main.main", "ünïcödé/päth.Fünc", "[libc.so.6]", "a/b/c/d/e/f/g/h.i"} {
		for chars := 0; chars < 60; chars++ {
			l := flameLabel(n, chars)
			if utf8.RuneCountInString(l) > chars || (l != "" && !strings.HasSuffix(n, strings.TrimPrefix(strings.TrimPrefix(l, "…"), "/"))) {
				t.Errorf("flameLabel(%q, %d) = %q", n, chars, l)
			}
		}
	}
}

// FuzzFlameLabel: a label fits its box and keeps the end of the name.
func FuzzFlameLabel(f *testing.F) {
	f.Add("github.com/dgraph-io/badger/v3.(*DB).Open", 22)
	f.Add("a/b/c", 3)
	f.Add("ü/ö", 2)
	f.Fuzz(func(t *testing.T, name string, chars int) {
		if chars < 0 || chars > 1000 || !utf8.ValidString(name) {
			return
		}
		l := flameLabel(name, chars)
		if utf8.RuneCountInString(l) > chars {
			t.Fatalf("flameLabel(%q, %d) = %q is too long", name, chars, l)
		}
		if l != "" && !strings.HasSuffix(name, strings.TrimPrefix(strings.TrimPrefix(l, "…"), "/")) {
			t.Fatalf("flameLabel(%q, %d) = %q drops the end", name, chars, l)
		}
	})
}
