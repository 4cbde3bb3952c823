package series

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
)

// verdict sets the report's verdict and the one-sentence reason. A verdict never
// reassures on thin evidence: with fewer snapshots than the trend test needs
// (Report.Needed), a series that grew makes it Inconclusive, never Steady or
// Shrinking.
func (a *seriesAnalysis) verdict(rep *Report) {
	n := len(rep.Totals)
	total := rep.Total
	switch {
	case len(rep.Suspects) > 0:
		rep.Verdict = Leak
		rep.Reason = a.leakReason(rep)
		if rep.ProvenLeaked && rep.Leaked > 0 {
			rep.Reason += " " + a.provenReason(rep)
		}
	case rep.ProvenLeaked && rep.Leaked > 0:
		rep.Verdict = Leak
		rep.Reason = a.provenReason(rep)
	case n < rep.Needed && len(rep.Growers) > 0:
		rep.Verdict = Inconclusive
		rep.Reason = a.thinReason(rep, n)
		if a.tooShort(total, n) {
			rep.Reason = a.inconclusiveReason(rep, n)
		}
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
			g := closestGrower(rep.Growers)
			rep.Reason = fmt.Sprintf("Nothing grew steadily enough to be a suspect: %s went from %s to %s (%s), but %s; %s.",
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

// inconclusiveReason says how far the total moved, why that decides nothing,
// which series grew (the grower closest to a suspect), and how many snapshots to
// take.
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
		s += "; " + a.growersClause(rep.Growers, 0)
	}
	return s + fmt.Sprintf(". Take 8–12 snapshots (at least %d more), evenly spaced over several minutes of the suspected growth.", max(MinDecisiveSnapshots, rep.Needed)-n)
}

// thinReason says which series grew, why that decides nothing yet, and how many
// more snapshots the trend test needs. It names the grower that came closest to a
// suspect (closestGrower).
func (a *seriesAnalysis) thinReason(rep *Report, n int) string {
	s := "Too few snapshots to decide: " + a.growersClause(rep.Growers, growersNamed)
	more := rep.Needed - n
	return s + fmt.Sprintf(". The trend test needs at least %d snapshots here, so nothing can be called steady yet: take %s, evenly spaced over the suspected growth.",
		rep.Needed, analyze.PluralWord(int64(more), "more snapshot", "more snapshots"))
}

// closestGrower is the grower that came closest to a suspect (see byCloseness).
func closestGrower(growers []Suspect) Suspect {
	return byCloseness(growers)[0]
}

// byCloseness orders growers by how close each came to a suspect: the latest
// check failed first (under the floor after chance, chance before noise, noise
// before fit, fit before steps); among those that grew steadily and failed only
// for too few snapshots (or the floor), the largest growth relative to the first
// value first (a site that tripled before a pool that breathed by 4%; from zero is
// the most); otherwise in the growers' order, the largest growth first.
func byCloseness(growers []Suspect) []Suspect {
	relative := func(s Suspect) float64 {
		if s.First <= 0 {
			return math.Inf(1)
		}
		return float64(s.Growth) / float64(s.First)
	}
	out := slices.Clone(growers)
	slices.SortStableFunc(out, func(x, y Suspect) int {
		if c := cmp.Compare(y.failed, x.failed); c != 0 || x.failed < seriesChance {
			return c
		}
		return cmp.Compare(relative(y), relative(x))
	})
	return out
}

// growersNamed is how many growers besides the closest a thin reason names
// (a reason must fit in a ticket's line).
const growersNamed = 2

// growersClause names what grew: the grower closest to a suspect with its
// numbers and the check it failed, then up to named others with their growth,
// and how many more grew ("X grew from 1 to 5 (+4), but …; Y (+4), Z (+1) and 2
// other series grew too").
func (a *seriesAnalysis) growersClause(growers []Suspect, named int) string {
	ordered := byCloseness(growers)
	g := ordered[0]
	s := fmt.Sprintf("%s grew from %s to %s (%s), but %s", g.Name, a.value(g.First), a.value(g.Last),
		analyze.FormatSignedValue(g.Growth, a.unit), a.why(g.Stats, g.failed, 1, false))
	others := ordered[1:]
	if len(others) == 0 {
		return s
	}
	var names []string
	for _, o := range others[:min(len(others), named)] {
		names = append(names, fmt.Sprintf("%s (%s)", o.Name, analyze.FormatSignedValue(o.Growth, a.unit)))
	}
	if more := len(others) - len(names); more > 0 {
		names = append(names, analyze.PluralWord(int64(more), "other series", "other series"))
	}
	list := names[0]
	if len(names) > 1 {
		list = strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	return s + "; " + list + " grew too"
}

// provenReason says how many goroutines the Go runtime proved leaked in the last
// snapshot, "proven leaked: N", and in which site most of them are.
func (a *seriesAnalysis) provenReason(rep *Report) string {
	last := len(a.totals) - 1
	s := fmt.Sprintf("Proven leaked: %s in the last snapshot, by the Go runtime's goroutineleak profile (blocked on something no other goroutine can reach, they can never run again)",
		analyze.Plural(rep.Leaked, "goroutine"))
	top, most := "", int64(0)
	for _, name := range a.names {
		if v := a.values[name][last]; v > most {
			top, most = name, v
		}
	}
	if top != "" {
		s += fmt.Sprintf("; the most in %s (%s)", top, a.value(most))
	}
	if rep.Total.Growth != 0 {
		s += fmt.Sprintf("; their number went from %s to %s over %d snapshots", a.value(rep.Total.First), a.value(rep.Total.Last), len(a.totals))
	}
	return s + "."
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
	if len(rep.Suspects) > 1 {
		others = "; " + analyze.PluralWord(int64(len(rep.Suspects)-1), "other suspect", "other suspects")
	}
	return fmt.Sprintf("%s grew steadily from %s to %s (%s, %s) in %s with R² %.2f, %s of the total%s.",
		subject, a.value(st.First), a.value(st.Last), analyze.FormatSignedValue(st.Growth, a.unit), rates,
		seriesStepsText(st.GrewSteps, st.Steps), st.R2, seriesPercent(st.ShareOfTotal), others)
}

// why explains in a clause which check a listed series failed in one direction
// (listed series are large enough and move in that direction); advise adds how
// many snapshots the chance check needs.
func (a *seriesAnalysis) why(st Stats, c seriesCheck, dir int, advise bool) string {
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
		clause := fmt.Sprintf("with %d snapshots and %s, %s in %s could be chance (p = %.2g)",
			a.ax.n, analyze.Plural(int64(a.candidates), "candidate"), gerund, seriesStepsText(moved, st.Steps), st.PValue)
		if need := seriesMinSnapshots(a.candidates, a.th.Alpha); advise && need > a.ax.n {
			clause += fmt.Sprintf("; take at least %d snapshots", need)
		}
		return clause
	case seriesBelowFloor:
		noun := "growth"
		if dir < 0 {
			noun = "decline"
		}
		return fmt.Sprintf("its steady %s of %s is under the %s a leak suspect needs", noun, a.value(AbsClamped(st.Growth)), a.value(a.th.MinGrowth))
	}
	return ""
}

// seriesStepsText renders "7 of 9 steps" (the noun agrees with the steps taken).
func seriesStepsText(k, steps int) string {
	return fmt.Sprintf("%d of %s", k, analyze.Plural(int64(steps), "step"))
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
