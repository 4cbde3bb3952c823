package view

import (
	"context"
	"encoding/json"
	"io"
	"iter"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/a-h/templ"
)

// Flame is a flame graph: a static SVG for pages without JavaScript and the data the
// script draws the interactive one from. Its boxes and nodes are streamed into
// the page as it is written, never held in a slice.
type Flame struct {
	ID string
	// Width and Height are the static picture's size in SVG units.
	Width, Height int
	Boxes         iter.Seq[FlameBox]
	// Hidden says how much the static picture leaves out.
	Hidden string
	// Data is the script's data but its names and nodes, which Nodes streams.
	Data  FlameData
	Nodes iter.Seq[FlameDataNode]
	Diff  bool
	// SandwichURL and FocusURL, when set, are the page's URL for the sandwich view
	// and for a focused view; the script appends fn=NAME or f=^NAME$ to them for
	// the function clicked or searched.
	SandwichURL, FocusURL string
	// ShortName, when set, gives each frame's name as pprof shortens it
	// (pprof.ShortName); the script labels boxes from it as pprof's flame
	// graph does, the full name staying in the tooltip.
	ShortName func(string) string
	// Wide draws the flame graph across the page, the top table below it;
	// LayoutURL, when set, is the page in the other layout.
	Wide      bool
	LayoutURL string
}

// FlameBox is one rectangle of the static picture.
type FlameBox struct {
	X, Y, W   string
	Fill      string
	Label     string // the text drawn in the box, possibly cut; "" when too narrow
	Title     string // the tooltip: full name, value, share
	Name      string
	Depth     int
	Clickable bool
}

// FlameData is the JSON the script reads: every node in preorder as [name
// index, value, base value, depth], and the names once. FlameDataScript writes
// it from a Flame (the nodes first, then the names they use, then their short
// names, see shortRef); Names, Short and Nodes are filled only when it is read
// back.
type FlameData struct {
	Names       []string   `json:"names,omitempty"`
	Short       []any      `json:"short,omitempty"`
	Nodes       [][4]int64 `json:"nodes,omitempty"`
	Total       int64      `json:"total"`
	Unit        string     `json:"unit"`
	Diff        bool       `json:"diff"`
	Hidden      int64      `json:"hidden"`
	Dropped     int        `json:"dropped"`
	BaseDropped int        `json:"base_dropped,omitempty"`
	Boxes       int        `json:"boxes"`
}

// FlameDataNode is one node of a flame graph's data: its name, its value, the
// base's value at the same place (in a diff) and its depth.
type FlameDataNode struct {
	Name               string
	Value, Base, Depth int64
}

// FlameDataScript writes a flame graph's data as a JSON data block, as
// templ.JSONScript does (HTML-safe JSON, the request's CSP nonce), but node by
// node as Nodes streams them: the nodes first, each name given an index the
// first time it is met, then the names.
func FlameDataScript(f Flame) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		head, err := json.Marshal(f.Data)
		if err != nil {
			return err
		}
		ew := &errWriter{w: w}
		ew.str(`<script id="` + templ.EscapeString(f.ID) + `" type="application/json"`)
		if nonce := templ.GetNonce(ctx); nonce != "" {
			ew.str(` nonce="` + templ.EscapeString(nonce) + `"`)
		}
		ew.str(">")
		ew.write(head[:len(head)-1]) // the object without its closing brace
		ew.str(`,"nodes":[`)
		index := map[string]int64{}
		var names []string
		var buf []byte
		for n := range f.Nodes {
			buf = buf[:0]
			if len(index) > 0 {
				buf = append(buf, ',')
			}
			id, ok := index[n.Name]
			if !ok {
				id = int64(len(names))
				index[n.Name] = id
				names = append(names, n.Name)
			}
			buf = append(buf, '[')
			for i, v := range [4]int64{id, n.Value, n.Base, n.Depth} {
				if i > 0 {
					buf = append(buf, ',')
				}
				buf = strconv.AppendInt(buf, v, 10)
			}
			ew.write(append(buf, ']'))
		}
		ew.str(`],"names":`)
		if names == nil {
			names = []string{}
		}
		b, err := json.Marshal(names)
		if err != nil {
			return err
		}
		ew.write(b)
		if f.ShortName != nil {
			short := make([]any, len(names))
			for i, n := range names {
				short[i] = shortRef(n, f.ShortName(n))
			}
			if b, err = json.Marshal(short); err != nil {
				return err
			}
			ew.str(`,"short":`)
			ew.write(b)
		}
		ew.str("}</script>")
		return ew.err
	})
}

// shortRef is how the page carries a frame's short name: when it ends the full
// name (most Go names: "stages.StageLoop" of "github.com/x/stages.StageLoop"),
// the number of UTF-16 code units before it, for the script's name.slice(n),
// which costs a few bytes instead of a second copy; otherwise the short name.
func shortRef(name, short string) any {
	if !strings.HasSuffix(name, short) {
		return short
	}
	units := 0
	for _, r := range name[:len(name)-len(short)] {
		units += utf16.RuneLen(r)
	}
	return units
}

// errWriter writes until the first error and keeps it.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) write(p []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(p)
	}
}

func (e *errWriter) str(s string) {
	if e.err == nil {
		_, e.err = io.WriteString(e.w, s)
	}
}

// flameImageCaption is the height of FlameImage's caption line, in SVG units.
const flameImageCaption = 24
