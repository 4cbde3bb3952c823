package view

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
)

// TestFlameDataShortNames: the page carries each frame's short name, as a
// count of UTF-16 code units to drop from the full name where the short name
// ends it, else whole; the script's name.slice(n) gives back exactly the short
// name, for non-ASCII names too.
func TestFlameDataShortNames(t *testing.T) {
	short := func(s string) string { // stands for pprof.ShortName: the tests of view cannot import it
		if s == "github.com/x/y/v3.(*DB).Open" {
			return "y.(*DB).Open"
		}
		return s[strings.LastIndex(s, "/")+1:]
	}
	names := []string{"root", "github.com/x/stages.StageLoop", "github.com/x/y/v3.(*DB).Open", "ünï/cödé😀/päth.Fünc", "main.main", "<script>/x.y"}
	var nodes []FlameDataNode
	for i, n := range names {
		nodes = append(nodes, FlameDataNode{Name: n, Value: 10, Depth: int64(i)})
	}
	f := Flame{ID: "flame-data", Width: 1200, Height: 18, Boxes: slices.Values([]FlameBox(nil)), Data: FlameData{Total: 10, Unit: "bytes"},
		Nodes: slices.Values(nodes), ShortName: short}
	raw := render(t, FlameGraph(f)).Find("script#flame-data").Text()
	var back FlameData
	if err := json.Unmarshal([]byte(raw), &back); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	if len(back.Short) != len(back.Names) {
		t.Fatalf("%d short names for %d names", len(back.Short), len(back.Names))
	}
	refs := 0
	for i, name := range back.Names {
		var got string
		switch s := back.Short[i].(type) {
		case float64: // name.slice(s), in UTF-16 code units as in the script
			got = string(utf16.Decode(utf16.Encode([]rune(name))[int(s):]))
			refs++
		case string:
			got = s
		default:
			t.Fatalf("short[%d] = %#v", i, s)
		}
		if got != short(name) {
			t.Errorf("%q: the script reads the short name %q, want %q", name, got, short(name))
		}
	}
	if refs < 4 || strings.Contains(raw, `"stages.StageLoop"`) {
		t.Errorf("%d short names are given by count: %s", refs, raw)
	}
}
