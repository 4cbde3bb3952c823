package analyze

import (
	"regexp/syntax"
	"unicode/utf8"
)

// logRequiredLiteral returns the longest literal that every match of expr
// contains, or nil. Lines without it cannot match, so the regexp runs only on
// the lines the fast literal scan finds. Case-folded parts and U+FFFD (which
// also matches invalid UTF-8 bytes) are never part of a required literal.
func logRequiredLiteral(expr string) []byte {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	return logRequired(re.Simplify())
}

// logRequired returns the longest literal that every match of re contains.
func logRequired(re *syntax.Regexp) []byte {
	switch re.Op {
	case syntax.OpLiteral:
		return logLongest(logLiteralRuns(re))
	case syntax.OpCapture:
		return logRequired(re.Sub[0])
	case syntax.OpPlus:
		return logRequired(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return logRequired(re.Sub[0])
		}
	case syntax.OpConcat:
		var best, run []byte
		flush := func() {
			if len(run) > len(best) {
				best = run
			}
			run = nil
		}
		for _, sub := range re.Sub {
			if exact, ok := logExact(sub); ok {
				// An exact child extends the current run; U+FFFD and folded
				// runes split it (logExact reports them as not exact).
				run = append(run, exact...)
				continue
			}
			// A literal with U+FFFD in it: its first run continues the current
			// run, its last run starts the next one, the middle runs stand
			// alone.
			if sub.Op == syntax.OpLiteral && sub.Flags&syntax.FoldCase == 0 {
				runs := logLiteralRuns(sub)
				run = append(run, runs[0]...)
				flush()
				if r := logLongest(runs[1 : len(runs)-1]); len(r) > len(best) {
					best = r
				}
				run = append([]byte(nil), runs[len(runs)-1]...)
				continue
			}
			flush()
			if r := logRequired(sub); len(r) > len(best) {
				best = r
			}
		}
		flush()
		return best
	}
	return nil
}

// logExact returns the one string re matches when it matches exactly one
// string (zero-width assertions count as the empty string: they constrain a
// match but add no bytes).
func logExact(re *syntax.Regexp) ([]byte, bool) {
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
		return logExact(re.Sub[0])
	case syntax.OpConcat:
		var out []byte
		for _, sub := range re.Sub {
			e, ok := logExact(sub)
			if !ok {
				return nil, false
			}
			out = append(out, e...)
		}
		return out, true
	}
	return nil, false
}

// logLiteralRuns splits a literal node into the runs of its runes that can be
// searched byte for byte: none when it is case-folded, split at U+FFFD.
func logLiteralRuns(re *syntax.Regexp) [][]byte {
	if re.Flags&syntax.FoldCase != 0 {
		return nil
	}
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

func logLongest(runs [][]byte) []byte {
	var best []byte
	for _, r := range runs {
		if len(r) > len(best) {
			best = r
		}
	}
	return best
}
