package profiles

import (
	"unicode/utf8"

	"github.com/leakui/leakui/analyze/pprof"
)

// flameLabel fits a function name into a box of chars characters as pprof's
// flame graph does: the first of pprof.DisplayNames that fits (the name
// shortened as pprof shortens it, "github.com/x/y/stages.StageLoop" →
// "stages.StageLoop", then "StageLoop"). Where pprof shrinks the font of the
// last, the label cuts it from the left instead ("…ageLoop"); it is "" when
// not even three characters fit. static/flame.js does the same for the
// interactive graph, from the short names the page carries.
func flameLabel(name string, chars int) string {
	names := pprof.DisplayNames(name)
	for _, n := range names {
		if utf8.RuneCountInString(n) <= chars {
			return n
		}
	}
	if chars < 3 {
		return ""
	}
	r := []rune(names[len(names)-1])
	return "…" + string(r[len(r)-(chars-1):])
}
