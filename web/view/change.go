package view

import (
	"strconv"
	"strings"
)

// ZeroChange reports a formatted change that is nothing: "0", "0 B", "+0",
// "±0 B", "0.00 ms".
func ZeroChange(text string) bool {
	f := strings.Fields(strings.TrimLeft(text, "+-−±"))
	if len(f) == 0 {
		return true
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimSuffix(f[0], "%"), ",", ""), 64)
	return err == nil && v == 0
}

// changeClass colours a change: "grow" (red) for growth, "shrink" (green) for
// a decrease, none (grey) for no change.
func changeClass(grew bool, text string) string {
	switch {
	case grew:
		return "grow"
	case ZeroChange(text):
		return ""
	}
	return "shrink"
}
