package profiles

// flameLabel fits a function name into a box of chars characters by cutting it
// from the left, where the package path is, so that the function's own name
// survives: whole leading path elements go first ("…/badger/v3.(*DB).Open"),
// then, if the last element alone is too long, characters ("…DB).Open"). It is
// "" when not even three characters fit. static/flame.js does the same for the
// interactive graph.
func flameLabel(name string, chars int) string {
	r := []rune(name)
	if len(r) <= chars {
		return name
	}
	if chars < 3 {
		return ""
	}
	// Cut at the slashes of the package path, the earliest first, so the label
	// keeps as much as fits.
	for i, c := range r {
		if c != '/' {
			continue
		}
		if rest := r[i+1:]; len(rest)+2 <= chars && len(rest) > 0 {
			return "…/" + string(rest)
		}
	}
	return "…" + string(r[len(r)-(chars-1):])
}
