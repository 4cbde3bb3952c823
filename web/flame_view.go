package web

import (
	"fmt"
	"hash/fnv"
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

// flameView lays out a flame graph as a static SVG (boxes at least one unit wide)
// and packs its data for the interactive script.
func flameView(id string, fg pprof.FlameGraph) view.Flame {
	f := view.Flame{ID: id, Width: flameWidth, Diff: fg.Diff}
	f.Data = view.FlameData{Total: fg.Total, Unit: fg.Unit, Diff: fg.Diff, Hidden: fg.Hidden, Dropped: fg.Dropped, Boxes: fg.Nodes}
	names := map[string]int64{}
	var maxDelta int64
	var pack func(n *pprof.FlameNode, depth int64)
	pack = func(n *pprof.FlameNode, depth int64) {
		id, ok := names[n.Name]
		if !ok {
			id = int64(len(f.Data.Names))
			names[n.Name] = id
			f.Data.Names = append(f.Data.Names, n.Name)
		}
		f.Data.Nodes = append(f.Data.Nodes, [4]int64{id, n.Value, n.Base, depth})
		maxDelta = max(maxDelta, abs(n.Value-n.Base))
		for _, c := range n.Children {
			pack(c, depth+1)
		}
	}
	pack(fg.Root, 0)

	var tooNarrow int64
	rows := 0
	scale := 0.0
	if fg.Total > 0 {
		scale = float64(flameWidth) / float64(fg.Total)
	}
	var layout func(n *pprof.FlameNode, x float64, depth int)
	layout = func(n *pprof.FlameNode, x float64, depth int) {
		w := float64(n.Value) * scale
		if w < 1 {
			tooNarrow += n.Value
			return
		}
		rows = max(rows, depth+1)
		b := view.FlameBox{
			X: strconv.FormatFloat(x, 'f', 1, 64), Y: strconv.Itoa(depth * flameRow), W: strconv.FormatFloat(max(w-0.5, 0.5), 'f', 1, 64),
			Name: n.Name, Depth: depth, Fill: flameFill(n, fg.Diff, maxDelta),
			Title: fmt.Sprintf("%s\n%s (%s of the total)", n.Name, analyze.FormatValue(n.Value, fg.Unit), analyze.Percent(n.Value, fg.Total)),
		}
		if fg.Diff {
			b.Title += fmt.Sprintf("\nbase %s, change %s", analyze.FormatValue(n.Base, fg.Unit), analyze.FormatSignedValue(n.Value-n.Base, fg.Unit))
		}
		if chars := int((w - 6) / 7); chars >= 4 {
			b.Label = flameLabel(n.Name, chars)
		}
		f.Boxes = append(f.Boxes, b)
		cx := x
		for _, c := range n.Children {
			layout(c, cx, depth+1)
			cx += float64(c.Value) * scale
		}
	}
	layout(fg.Root, 0, 0)
	f.Height = max(rows, 1) * flameRow
	f.Hidden = fmt.Sprintf("%d boxes drawn; boxes narrower than a pixel are left out, with %s (%s of the total) under them",
		len(f.Boxes), analyze.FormatValue(tooNarrow, fg.Unit), analyze.Percent(tooNarrow, fg.Total))
	if fg.Dropped > 0 {
		f.Hidden += fmt.Sprintf(" (the page holds the %s largest boxes; %s smaller ones stayed on the server)",
			analyze.FormatCount(int64(fg.Nodes)), analyze.FormatCount(int64(fg.Dropped)))
	}
	f.Hidden += "."
	return f
}

// flameFill colours a box: warm hues by name, or red/blue by growth in a diff.
func flameFill(n *pprof.FlameNode, diff bool, maxDelta int64) string {
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
