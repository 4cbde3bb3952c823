// Package spark draws the small line charts leakui puts beside a number: the
// points of an SVG polyline for pages and a row of block characters for the
// terminal, both scaled the same way between a series' lowest and highest value.
package spark

import (
	"fmt"
	"math"
	"strings"
)

// Fractions places each value between the series' lowest (0) and highest (1). A
// flat series (every value equal, or a single value) has flat set and all zeros.
func Fractions(values []int64) (fractions []float64, flat bool) {
	if len(values) == 0 {
		return nil, true
	}
	lo, hi := values[0], values[0]
	for _, v := range values {
		lo, hi = min(lo, v), max(hi, v)
	}
	fractions = make([]float64, len(values))
	if hi == lo {
		return fractions, true
	}
	for i, v := range values {
		fractions[i] = (float64(v) - float64(lo)) / (float64(hi) - float64(lo))
	}
	return fractions, false
}

// blocks are the eight heights of a terminal sparkline, lowest first.
var blocks = []rune("▁▂▃▄▅▆▇█")

// Blocks draws values as a row of block characters, the lowest value as ▁ and the
// highest as █; a flat series is a row of ▁.
func Blocks(values []int64) string {
	fractions, _ := Fractions(values)
	var b strings.Builder
	for _, f := range fractions {
		i := int(math.Round(f * float64(len(blocks)-1)))
		b.WriteRune(blocks[min(max(i, 0), len(blocks)-1)])
	}
	return b.String()
}

// Points renders values as the points attribute of an SVG polyline in a box
// width × height, left to right, with a margin of one unit above and below; a
// flat series runs through the middle.
func Points(values []int64, width, height float64) string {
	fractions, flat := Fractions(values)
	var b strings.Builder
	for i, f := range fractions {
		x := 0.0
		if len(values) > 1 {
			x = float64(i) * width / float64(len(values)-1)
		}
		y := height / 2
		if !flat {
			y = height - 1 - f*(height-2)
		}
		fmt.Fprintf(&b, "%.1f,%.1f ", x, y)
	}
	return strings.TrimSpace(b.String())
}
