package series

import (
	"math"
)

// seriesAxis holds what every series of one analysis shares: the snapshot
// positions, the minutes since the first snapshot (when known), the reference
// total for shares, and the null distribution of the trend test.
type seriesAxis struct {
	n        int
	index    []float64 // 0, 1, …, n−1
	minutes  []float64 // nil when the times are unknown or all equal
	refTotal float64   // largest absolute total, > 0 unless everything is zero
	trend    *seriesTrendTest
}

// stats describes one series' movement. The p-value and confidence, which cost a
// pass over all pairs of values, are left for test.
func (ax *seriesAxis) stats(v []int64) Stats {
	st := Stats{First: v[0], Last: v[len(v)-1], Min: v[0], Max: v[0], Steps: len(v) - 1, PValue: 1}
	for i, x := range v {
		st.Min, st.Max = min(st.Min, x), max(st.Max, x)
		if i == 0 {
			continue
		}
		switch {
		case x > v[i-1]:
			st.GrewSteps++
		case x < v[i-1]:
			st.ShrankSteps++
		}
	}
	st.Growth = seriesSub(st.Last, st.First)
	if st.First != 0 {
		r := float64(st.Growth) / math.Abs(float64(st.First))
		st.GrowthRatio = &r
	}
	if ax.refTotal > 0 {
		st.ShareOfTotal = float64(st.Growth) / ax.refTotal
	}
	st.Slope, st.R2, st.Noise = seriesLeastSquares(ax.index, v)
	if ax.minutes != nil {
		perMinute, _, _ := seriesLeastSquares(ax.minutes, v)
		st.SlopePerMinute = &perMinute
	}
	switch seriesSign(st.Slope) {
	case 1:
		st.StepShare = float64(st.GrewSteps) / float64(st.Steps)
	case -1:
		st.StepShare = float64(st.ShrankSteps) / float64(st.Steps)
	}
	return st
}

// seriesLeastSquares fits y = a + slope·x and returns the slope, R² and the standard
// deviation of the residuals (with n−2 degrees of freedom). A constant x or y
// gives slope 0 and R² 0.
func seriesLeastSquares(x []float64, y []int64) (slope, r2, noise float64) {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += float64(y[i])
	}
	mx, my = mx/n, my/n
	var sxx, sxy, syy float64
	for i := range x {
		dx, dy := x[i]-mx, float64(y[i])-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return 0, 0, 0
	}
	slope = sxy / sxx
	ssRes := max(syy-slope*sxy, 0)
	r2 = min(max(1-ssRes/syy, 0), 1)
	if len(x) > 2 {
		noise = math.Sqrt(ssRes / (n - 2))
	}
	return slope, r2, noise
}

// seriesTrendTest is the one-sided Mann-Kendall test for n values: how likely an
// ordering at least as steady as the observed one is when the values have no
// trend (every ordering equally likely). Up to seriesExactN values it uses the exact
// distribution of inversions in a random permutation; beyond, the normal
// approximation.
type seriesTrendTest struct {
	n   int
	cdf []float64 // cdf[k] = P(inversions ≤ k); nil beyond seriesExactN
}

const seriesExactN = 64

func newSeriesTrendTest(n int) *seriesTrendTest {
	t := &seriesTrendTest{n: n}
	if n <= seriesExactN {
		t.cdf = seriesInversionCDF(n)
	}
	return t
}

// pValue is the chance, under no trend, of a Kendall score S at least as large
// (dir 1, growth) or as small (dir −1, decline) as v's. Ties count as half an
// inversion, so a flat stretch is neither evidence for nor against a trend.
func (t *seriesTrendTest) pValue(v []int64, dir int) float64 {
	s := 0 // concordant − discordant pairs
	for i := range v {
		for j := i + 1; j < len(v); j++ {
			switch {
			case v[j] > v[i]:
				s++
			case v[j] < v[i]:
				s--
			}
		}
	}
	s *= dir
	pairs := t.n * (t.n - 1) / 2
	if t.cdf != nil {
		// Inversions plus half the ties is (pairs − S)/2.
		k := (pairs - s) / 2
		return t.cdf[min(max(k, 0), len(t.cdf)-1)]
	}
	nf := float64(t.n)
	sd := math.Sqrt(nf * (nf - 1) * (2*nf + 5) / 18)
	z := 0.0
	switch {
	case s > 0:
		z = float64(s-1) / sd
	case s < 0:
		z = float64(s+1) / sd
	}
	return 0.5 * math.Erfc(z/math.Sqrt2)
}

// seriesInversionCDF returns P(inversions ≤ k) for a uniformly random permutation of n
// elements (the Mahonian distribution), k = 0 … n(n−1)/2.
func seriesInversionCDF(n int) []float64 {
	dist := []float64{1}
	prefix := make([]float64, 0, n*(n-1)/2+1)
	for m := 2; m <= n; m++ {
		// Inserting the m-th element adds 0…m−1 inversions, each equally likely.
		prefix = prefix[:0]
		var run float64
		for _, p := range dist {
			run += p
			prefix = append(prefix, run)
		}
		next := make([]float64, len(dist)+m-1)
		for k := range next {
			hi := min(k, len(dist)-1)
			sum := prefix[hi]
			if lo := k - m; lo >= 0 {
				sum -= prefix[lo]
			}
			next[k] = max(sum, 0) / float64(m)
		}
		dist = next
	}
	cdf := make([]float64, len(dist))
	var run float64
	for k, p := range dist {
		run += p
		cdf[k] = min(run, 1)
	}
	return cdf
}

// seriesMinSnapshots is the smallest number of snapshots at which a series that grows
// in every step can pass the chance check with this many candidates.
func seriesMinSnapshots(candidates int, alpha float64) int {
	p := 1.0
	for m := 1; m <= 1000; m++ {
		p /= float64(m)
		if p*float64(max(candidates, 1)) <= alpha {
			return max(m, 3)
		}
	}
	return 1000
}

func seriesSign(f float64) int {
	switch {
	case f > 0:
		return 1
	case f < 0:
		return -1
	}
	return 0
}

// seriesSub returns a − b, clamped to the int64 range instead of wrapping.
func seriesSub(a, b int64) int64 {
	d := a - b
	if (b < 0 && d < a) || (b > 0 && d > a) {
		if b < 0 {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return d
}

// AddClamped returns a + b, clamped to the int64 range instead of wrapping, as
// every sum of a series is (pprof's series feed it too).
func AddClamped(a, b int64) int64 {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		if b > 0 {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return s
}

// AbsClamped returns |v|, with |MinInt64| clamped to MaxInt64.
func AbsClamped(v int64) int64 {
	if v == math.MinInt64 {
		return math.MaxInt64
	}
	if v < 0 {
		return -v
	}
	return v
}
