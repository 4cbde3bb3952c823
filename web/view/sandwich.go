package view

// SandwichView is one function between its callers (above) and its callees
// (below), with its own flat and cum.
type SandwichView struct {
	Name, SampleType           string
	Flat, Cum, FlatPct, CumPct string
	FlatValue, CumValue        int64
	Callers, Callees           []SandwichEdge
	// Roots is the part of cum where the function is the outermost frame, "" for
	// none.
	Roots string
	// Focus, Top and Flame link to the profile focused on the function, the top
	// table and the flame graph.
	Focus, Top, Flame string
}

// SandwichEdge is one caller or callee: the value through the call, its share of
// the function's cum, and a link to its own sandwich.
type SandwichEdge struct {
	Name, Value, Pct, URL string
	Exact                 int64
}

// sortDirection is the aria-sort of a sorted column: names go up, values down.
func sortDirection(label string) string {
	if label == "function" {
		return "ascending"
	}
	return "descending"
}

// sortArrow shows the direction of a sorted column.
func sortArrow(label string) string {
	if label == "function" {
		return "▲"
	}
	return "▼"
}
