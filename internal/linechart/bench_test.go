package linechart

import (
	"math"
	"testing"
)

// BenchmarkSVGRunChart draws a run's memory chart at its most points (the lab
// keeps 600 per run), three lines: what a run page and its chart image cost.
func BenchmarkSVGRunChart(b *testing.B) {
	const n = 600
	c := Chart{Title: "Memory", Unit: "bytes", XLabel: "cycle"}
	for i := range n {
		c.X = append(c.X, float64(i+1))
	}
	for k, class := range []string{"s1", "s2", "s3"} {
		s := Series{Key: class, Name: class, Class: class}
		for i := range n {
			s.Values = append(s.Values, float64(k+1)*(1<<20)*(10+math.Sin(float64(i)/10)))
		}
		c.Series = append(c.Series, s)
	}
	b.ReportAllocs()
	for b.Loop() {
		if len(SVG(c, 560, 220, false)) == 0 {
			b.Fatal("empty")
		}
	}
}
