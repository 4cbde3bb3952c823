package profiles

import (
	"fmt"
	"hash/fnv"
	"iter"
	"strconv"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/web/view"
)

// Static flame graph geometry, in SVG units.
const (
	flameWidth = 1200
	flameRow   = 18
)

// flameView lays out a flame graph cut as a static SVG (boxes at least one
// unit wide) and the data of the interactive script. Nothing is copied: one
// walk over the cut measures the picture, and the boxes and the script's nodes
// are streamed from the cut's trees as the page is written.
func flameView(id string, cut *pprof.FlameCut) view.Flame {
	f := view.Flame{ID: id, Width: flameWidth, Diff: cut.Diff, ShortName: pprof.ShortName}
	f.Data = view.FlameData{Total: cut.Total, Unit: cut.Unit, Diff: cut.Diff, Hidden: cut.Hidden, Dropped: cut.Dropped, BaseDropped: cut.BaseDropped, Boxes: cut.Nodes}
	var maxDelta int64
	for b := range cut.Walk() {
		maxDelta = max(maxDelta, abs(b.Value-b.Base))
	}
	rows, drawn, tooNarrow := 0, 0, int64(0)
	for b := range flameLayout(cut, &tooNarrow) {
		rows = max(rows, b.Depth+1)
		drawn++
	}
	f.Height = max(rows, 1) * flameRow
	f.Boxes = func(yield func(view.FlameBox) bool) {
		var narrow int64
		for b := range flameLayout(cut, &narrow) {
			if !yield(flameBox(b, cut, maxDelta)) {
				return
			}
		}
	}
	f.Nodes = func(yield func(view.FlameDataNode) bool) {
		for b := range cut.Walk() {
			if !yield(view.FlameDataNode{Name: b.Name, Value: b.Value, Base: b.Base, Depth: int64(b.Depth)}) {
				return
			}
		}
	}
	f.Hidden = fmt.Sprintf("%d boxes drawn; boxes narrower than a pixel are left out, with %s (%s of the total) under them",
		drawn, analyze.FormatValue(tooNarrow, cut.Unit), analyze.Percent(tooNarrow, cut.Total))
	switch {
	case cut.BaseDropped > 0:
		f.Hidden += fmt.Sprintf(" (the page holds the %s largest boxes; %s smaller ones of the target's tree and %s of the base's stayed on the server)",
			analyze.FormatCount(int64(cut.Nodes)), analyze.FormatCount(int64(cut.Dropped)), analyze.FormatCount(int64(cut.BaseDropped)))
	case cut.Dropped > 0:
		f.Hidden += fmt.Sprintf(" (the page holds the %s largest boxes; %s smaller ones stayed on the server)",
			analyze.FormatCount(int64(cut.Nodes)), analyze.FormatCount(int64(cut.Dropped)))
	}
	f.Hidden += "."
	return f
}

// placedBox is a box of the static picture: the cut's box and its place.
type placedBox struct {
	pprof.FlameBox
	X, W float64
}

// flameLayout streams the boxes of the static picture, in the cut's preorder:
// a box is as wide as its value, its children start at its left edge, and a
// box narrower than one unit is left out with its subtree (its value added to
// tooNarrow).
func flameLayout(cut *pprof.FlameCut, tooNarrow *int64) iter.Seq[placedBox] {
	return func(yield func(placedBox) bool) {
		scale := 0.0
		if cut.Total > 0 {
			scale = float64(flameWidth) / float64(cut.Total)
		}
		next := []float64{0} // next[d] is where the next box at depth d starts
		skip := -1           // the depth of a box left out, whose subtree is too
		for b := range cut.Walk() {
			if skip >= 0 && b.Depth > skip {
				continue
			}
			skip = -1
			x, w := next[b.Depth], float64(b.Value)*scale
			next[b.Depth] += w
			if w < 1 {
				*tooNarrow += b.Value
				skip = b.Depth
				continue
			}
			next = append(next[:b.Depth+1], x)
			if !yield(placedBox{b, x, w}) {
				return
			}
		}
	}
}

// flameBox formats a box of the static picture.
func flameBox(b placedBox, cut *pprof.FlameCut, maxDelta int64) view.FlameBox {
	box := view.FlameBox{
		X: strconv.FormatFloat(b.X, 'f', 1, 64), Y: strconv.Itoa(b.Depth * flameRow), W: strconv.FormatFloat(max(b.W-0.5, 0.5), 'f', 1, 64),
		Name: b.Name, Depth: b.Depth, Fill: flameFill(b.FlameBox, cut.Diff, maxDelta),
		Title: fmt.Sprintf("%s\n%s (%s of the total)", b.Name, analyze.FormatValue(b.Value, cut.Unit), analyze.Percent(b.Value, cut.Total)),
	}
	if cut.Diff {
		box.Title += fmt.Sprintf("\nbase %s, change %s", analyze.FormatValue(b.Base, cut.Unit), analyze.FormatSignedValue(b.Value-b.Base, cut.Unit))
	}
	if chars := int((b.W - 6) / 7); chars >= 4 {
		box.Label = flameLabel(b.Name, chars)
	}
	return box
}

// flameFill colours a box: warm hues by name, or red/blue by growth in a diff.
func flameFill(n pprof.FlameBox, diff bool, maxDelta int64) string {
	if diff {
		d := n.Value - n.Base
		if d == 0 || maxDelta == 0 {
			return "rgb(220,220,220)"
		}
		k := float64(abs(d)) / float64(maxDelta)
		c := int(225 - 160*k)
		if d > 0 {
			return fmt.Sprintf("rgb(240,%d,%d)", c, c)
		}
		return fmt.Sprintf("rgb(%d,%d,240)", c, c)
	}
	h := fnv.New32a()
	h.Write([]byte(n.Name))
	v := h.Sum32()
	return fmt.Sprintf("rgb(%d,%d,%d)", 205+v%50, 80+(v>>8)%130, 40+(v>>16)%50)
}
