package series

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
)

// verdict sets the report's verdict and the one-sentence reason.
func (a *seriesAnalysis) verdict(rep *Report) {
	n := len(rep.Totals)
	total := rep.Total
	switch {
	case len(rep.Suspects) > 0:
		rep.Verdict = Leak
		rep.Reason = a.leakReason(rep)
	case total.Growth < 0 && (len(rep.Shrinkers) > 0 || a.check(total, -1) == seriesPassed):
		rep.Verdict = Shrinking
		if len(rep.Shrinkers) > 0 {
			s := rep.Shrinkers[0]
			rep.Reason = fmt.Sprintf("Nothing grew steadily and the total fell from %s to %s (%s): %s shrank from %s to %s in %s.",
				a.value(total.First), a.value(total.Last), analyze.FormatSignedValue(total.Growth, a.unit), s.Name,
				a.value(s.First), a.value(s.Last), seriesStepsText(s.ShrankSteps, s.Steps))
		} else {
			rep.Reason = fmt.Sprintf("Nothing grew steadily and the total fell steadily from %s to %s (%s, %s per snapshot) in %s.",
				a.value(total.First), a.value(total.Last), analyze.FormatSignedValue(total.Growth, a.unit), a.rate(total.Slope), seriesStepsText(total.ShrankSteps, total.Steps))
		}
	case a.tooShort(total, n):
		rep.Verdict = Inconclusive
		rep.Reason = a.inconclusiveReason(rep, n)
	default:
		rep.Verdict = Steady
		totalText := fmt.Sprintf("the total went from %s to %s over %d snapshots", a.value(total.First), a.value(total.Last), n)
		if len(rep.Growers) > 0 {
			g := rep.Growers[0]
			rep.Reason = fmt.Sprintf("Nothing grew steadily: the largest grower, %s, went from %s to %s (%s), but %s; %s.",
				g.Name, a.value(g.First), a.value(g.Last), analyze.FormatSignedValue(g.Growth, a.unit), g.Why, totalText)
		} else {
			rep.Reason = fmt.Sprintf("Nothing grew by %s of the total or more: %s.", seriesPercent(a.th.MinShare), totalText)
		}
	}
	rep.VerdictText = rep.Verdict.Text()
}

// tooShort says whether a series without suspects is too short to call steady:
// fewer than MinDecisiveSnapshots snapshots while the total moved by
// MinDecisiveChange of its first value or more.
func (a *seriesAnalysis) tooShort(total Stats, n int) bool {
	if n >= MinDecisiveSnapshots {
		return false
	}
	first := math.Max(math.Abs(float64(total.First)), 1)
	return math.Abs(float64(total.Growth)) >= MinDecisiveChange*first
}

// inconclusiveReason says how far the total moved, why that decides nothing, and
// how many snapshots to take.
func (a *seriesAnalysis) inconclusiveReason(rep *Report, n int) string {
	total := rep.Total
	over := fmt.Sprintf("%d snapshots", n)
	if a.span >= time.Second {
		over += " spanning " + a.span.Round(time.Second).String()
	}
	pct := ""
	if total.First != 0 {
		pct = ", " + seriesSignedPercent(float64(total.Growth)/math.Abs(float64(total.First)))
	}
	s := fmt.Sprintf("Too few snapshots to decide: the total went from %s to %s (%s%s) over %s, too few to tell steady growth from a one-off jump",
		a.value(total.First), a.value(total.Last), analyze.FormatSignedValue(total.Growth, a.unit), pct, over)
	if len(rep.Growers) > 0 {
		g := rep.Growers[0]
		s += fmt.Sprintf("; the largest grower, %s, went from %s to %s (%s) and %s", g.Name, a.value(g.First), a.value(g.Last),
			analyze.FormatSignedValue(g.Growth, a.unit), g.Why)
	}
	return s + fmt.Sprintf(". Take 8–12 snapshots (at least %d more), evenly spaced over several minutes of the suspected growth.", MinDecisiveSnapshots-n)
}

// seriesSignedPercent renders a change as a signed percentage.
func seriesSignedPercent(f float64) string {
	if f > 0 {
		return "+" + seriesPercent(f)
	}
	return seriesPercent(f)
}

// leakReason names the top suspect and the numbers that make it one.
func (a *seriesAnalysis) leakReason(rep *Report) string {
	s := rep.Suspects[0]
	subject, st := s.Name, s.Stats
	if s.Why != "" && len(s.Stacks) > 0 && s.Stacks[0].Passed {
		// The series passed through one of its stacks: quote the stack's numbers.
		subject, st = "a stack of "+s.Name, s.Stacks[0].Stats
		if fr := s.Stacks[0].Frames; len(fr) > 1 {
			subject += " (called from " + fr[1] + ")"
		}
	}
	rates := a.rate(st.Slope) + " per snapshot"
	if st.SlopePerMinute != nil {
		rates += ", " + a.rate(*st.SlopePerMinute) + " per minute"
	}
	others := ""
	switch len(rep.Suspects) {
	case 1:
	case 2:
		others = "; 1 other suspect"
	default:
		others = fmt.Sprintf("; %d other suspects", len(rep.Suspects)-1)
	}
	return fmt.Sprintf("%s grew steadily from %s to %s (%s, %s) in %s with R² %.2f, %s of the total%s.",
		subject, a.value(st.First), a.value(st.Last), analyze.FormatSignedValue(st.Growth, a.unit), rates,
		seriesStepsText(st.GrewSteps, st.Steps), st.R2, seriesPercent(st.ShareOfTotal), others)
}

// why explains in a clause which check a listed series failed in one direction
// (listed series are large enough and move in that direction).
func (a *seriesAnalysis) why(st Stats, c seriesCheck, dir int) string {
	moved, verb, gerund := st.GrewSteps, "grew", "growing"
	if dir < 0 {
		moved, verb, gerund = st.ShrankSteps, "shrank", "shrinking"
	}
	change := a.value(AbsClamped(st.Growth))
	switch c {
	case seriesUnsteady:
		if moved == 1 {
			return fmt.Sprintf("it %s in one jump (1 of %d steps)", verb, st.Steps)
		}
		return fmt.Sprintf("it %s in only %s", verb, seriesStepsText(moved, st.Steps))
	case seriesPoorFit:
		return fmt.Sprintf("a straight line fits it poorly (R² %.2f)", st.R2)
	case seriesNoisy:
		return fmt.Sprintf("its change, %s, is within %g× the noise around its line (±%s)", change, a.th.NoiseFactor, a.value(int64(math.Round(st.Noise))))
	case seriesChance:
		candidates := "1 candidate"
		if a.candidates > 1 {
			candidates = fmt.Sprintf("%d candidates", a.candidates)
		}
		clause := fmt.Sprintf("with %d snapshots and %s, %s in %s could be chance (p = %.2g)",
			a.ax.n, candidates, gerund, seriesStepsText(moved, st.Steps), st.PValue)
		if need := seriesMinSnapshots(a.candidates, a.th.Alpha); need > a.ax.n {
			clause += fmt.Sprintf("; take at least %d snapshots", need)
		}
		return clause
	}
	return ""
}

// seriesStepsText renders "7 of 9 steps".
func seriesStepsText(k, steps int) string {
	if steps == 1 {
		return fmt.Sprintf("%d of 1 step", k)
	}
	return fmt.Sprintf("%d of %d steps", k, steps)
}

// value renders a value in the series' unit.
func (a *seriesAnalysis) value(v int64) string {
	if a.unit == "" {
		return analyze.FormatCount(v)
	}
	return analyze.FormatValue(v, a.unit)
}

// rate renders a slope in the series' unit with its sign; small counts keep two
// decimals.
func (a *seriesAnalysis) rate(f float64) string {
	plus := ""
	if f > 0 {
		plus = "+"
	}
	if math.Abs(f) >= 100 || a.unit == "bytes" || a.unit == "nanoseconds" {
		if math.Abs(f) >= math.MaxInt64 {
			return plus + strconv.FormatFloat(f, 'g', 3, 64)
		}
		return plus + a.value(int64(math.Round(f)))
	}
	s := strconv.FormatFloat(f, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return plus + s
}

// seriesPercent renders a share as a percentage with sensible precision.
func seriesPercent(f float64) string {
	p := f * 100
	switch a := math.Abs(p); {
	case a >= 10:
		return strconv.FormatFloat(p, 'f', 0, 64) + "%"
	case a >= 1:
		return strconv.FormatFloat(p, 'f', 1, 64) + "%"
	}
	return strconv.FormatFloat(p, 'g', 2, 64) + "%"
}
