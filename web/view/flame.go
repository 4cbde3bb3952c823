package view

// Flame is a flame graph: a static SVG for pages without JavaScript and the data the
// script draws the interactive one from.
type Flame struct {
	ID string
	// Width and Height are the static picture's size in SVG units.
	Width, Height int
	Boxes         []FlameBox
	// Hidden says how much the static picture leaves out.
	Hidden string
	Data   FlameData
	Diff   bool
	// SandwichURL and FocusURL, when set, are the page's URL for the sandwich view
	// and for a focused view; the script appends fn=NAME or f=^NAME$ to them for
	// the function clicked or searched.
	SandwichURL, FocusURL string
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

// FlameData is the JSON the script reads: names once, then every node in preorder
// as [name index, value, base value, depth].
type FlameData struct {
	Names   []string   `json:"names"`
	Nodes   [][4]int64 `json:"nodes"`
	Total   int64      `json:"total"`
	Unit    string     `json:"unit"`
	Diff    bool       `json:"diff"`
	Hidden  int64      `json:"hidden"`
	Dropped int        `json:"dropped"`
	Boxes   int        `json:"boxes"`
}

// flameImageCaption is the height of FlameImage's caption line, in SVG units.
const flameImageCaption = 24
