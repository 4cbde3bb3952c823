package logs

import (
	"bytes"
	"regexp/syntax"
	"strconv"
	"unicode/utf8"
)

// req is a literal that a line must contain to match a regexp: byte for
// byte, or (fold) with ASCII letters in either case.
type req struct {
	text []byte // lower case when fold
	fold bool
}

// maxAlternatives caps the literals of one prefilter set, such as the
// branches of ERROR|WARN|FATAL.
const maxAlternatives = 8

// requiredSets returns sets of literals such that, for each set, every
// match of expr contains one of its literals; nil when there is none. Lines
// with none of a set's literals cannot match, so the regexp runs only on the
// lines the fast literal scans of one set find; bestReqs picks the set
// that is rarest in the input. U+FFFD (which also matches invalid UTF-8
// bytes) never takes part, nor do case-folded k and s (they also match the
// Kelvin sign and the long s).
func requiredSets(expr string) [][]req {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	return reqCandidates(re.Simplify())
}

// bestReqs picks the candidate set whose literals occur least in sample
// (ties, or no sample: the one with the longest weakest literal).
func bestReqs(cands [][]req, sample []byte) []req {
	var best []req
	bestHits, bestScore := -1, 0.0
	var lower []byte
	for _, set := range cands {
		hits := 0
		for _, r := range set {
			if r.fold {
				if lower == nil {
					lower = asciiLower(sample)
				}
				hits += bytes.Count(lower, r.text)
			} else {
				hits += bytes.Count(sample, r.text)
			}
		}
		score := reqScore(set)
		if bestHits < 0 || hits < bestHits || (hits == bestHits && score > bestScore) {
			best, bestHits, bestScore = set, hits, score
		}
	}
	return best
}

// reqs returns the best required set of re, judged without a sample.
func reqs(re *syntax.Regexp) []req {
	return bestReqs(reqCandidates(re), nil)
}

// reqCandidates returns the required sets of re.
func reqCandidates(re *syntax.Regexp) [][]req {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			if set := foldReq(re.Rune); set != nil {
				return [][]req{set}
			}
			return nil
		}
		if r := longest(literalRuns(re)); len(r) > 0 {
			return [][]req{{{text: r}}}
		}
	case syntax.OpCapture, syntax.OpPlus:
		return reqCandidates(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return reqCandidates(re.Sub[0])
		}
	case syntax.OpAlternate:
		var set []req
		for _, sub := range re.Sub {
			s := reqs(sub)
			if s == nil {
				return nil
			}
			set = append(set, s...)
		}
		if len(set) > maxAlternatives {
			return nil
		}
		return [][]req{set}
	case syntax.OpConcat:
		var cands [][]req
		var run []byte
		flush := func() {
			if len(run) > 0 {
				cands = append(cands, []req{{text: run}})
			}
			run = nil
		}
		for _, sub := range re.Sub {
			if exact, ok := exactString(sub); ok {
				run = append(run, exact...)
				continue
			}
			// A literal with U+FFFD in it: its first run continues the current
			// run, its last run starts the next one, the middle runs stand
			// alone.
			if sub.Op == syntax.OpLiteral && sub.Flags&syntax.FoldCase == 0 {
				runs := literalRuns(sub)
				run = append(run, runs[0]...)
				flush()
				if r := longest(runs[1 : len(runs)-1]); len(r) > 0 {
					cands = append(cands, []req{{text: r}})
				}
				run = append([]byte(nil), runs[len(runs)-1]...)
				continue
			}
			flush()
			cands = append(cands, reqCandidates(sub)...)
		}
		flush()
		return cands
	}
	return nil
}

// foldReq turns a case-folded literal into its longest stretch of ASCII
// without k or s, in lower case.
func foldReq(runes []rune) []req {
	var best, cur []byte
	for _, r := range append(runes, -1) {
		lower := r | 0x20
		if r < 0 || r >= utf8.RuneSelf || lower == 'k' || lower == 's' {
			if len(cur) > len(best) {
				best = cur
			}
			cur = nil
			continue
		}
		if r >= 'A' && r <= 'Z' {
			r = lower
		}
		cur = append(cur, byte(r))
	}
	if len(best) == 0 {
		return nil
	}
	return []req{{text: best, fold: true}}
}

// reqScore rates a set: its weakest literal's length (a folded one counts
// three quarters), less a little per alternative.
func reqScore(set []req) float64 {
	if len(set) == 0 {
		return 0
	}
	weakest := 1e9
	for _, r := range set {
		s := float64(len(r.text))
		if r.fold {
			s *= 0.75
		}
		weakest = min(weakest, s)
	}
	return weakest - 0.1*float64(len(set)-1)
}

// exactString returns the one string re matches when it matches exactly one
// string (zero-width assertions count as the empty string: they constrain a
// match but add no bytes).
func exactString(re *syntax.Regexp) ([]byte, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return nil, true
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil, false
		}
		var out []byte
		for _, r := range re.Rune {
			if r == utf8.RuneError {
				return nil, false
			}
			out = utf8.AppendRune(out, r)
		}
		return out, true
	case syntax.OpCapture:
		return exactString(re.Sub[0])
	case syntax.OpConcat:
		var out []byte
		for _, sub := range re.Sub {
			e, ok := exactString(sub)
			if !ok {
				return nil, false
			}
			out = append(out, e...)
		}
		return out, true
	}
	return nil, false
}

// literalRuns splits an exact literal node into the runs of its runes that
// can be searched byte for byte, split at U+FFFD.
func literalRuns(re *syntax.Regexp) [][]byte {
	var runs [][]byte
	var cur []byte
	for _, r := range re.Rune {
		if r == utf8.RuneError {
			runs = append(runs, cur)
			cur = nil
			continue
		}
		cur = utf8.AppendRune(cur, r)
	}
	return append(runs, cur)
}

func longest(runs [][]byte) []byte {
	var best []byte
	for _, r := range runs {
		if len(r) > len(best) {
			best = r
		}
	}
	return best
}

// reqMatches reports whether line contains one of the set's literals (the
// property the prefilter relies on; for tests).
func reqMatches(set []req, line []byte) bool {
	for _, r := range set {
		if !r.fold && bytes.Contains(line, r.text) {
			return true
		}
		if r.fold && bytes.Contains(asciiLower(line), r.text) {
			return true
		}
	}
	return false
}

// asciiLower lowers ASCII letters only.
func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c |= 0x20
		}
		out[i] = c
	}
	return out
}

// String renders the literal quoted, with /i when case is ignored.
func (r req) String() string {
	s := strconv.Quote(string(r.text))
	if r.fold {
		s += "/i"
	}
	return s
}
