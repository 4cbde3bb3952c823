package logs

import (
	"bytes"
	"fmt"

	"github.com/leakui/leakui/analyze"

	"regexp"
	"strings"
)

// Limits of a log count. They keep memory bounded whatever the input: the
// matchers, key tables and bucket arrays never grow past them.
const (
	// MaxPatterns is the most distinct patterns one count may have, pair
	// patterns included.
	MaxPatterns = 64
	// maxPatternBytes is the longest pattern or key regexp accepted.
	maxPatternBytes = 1024
	// maxPairs is the most start/close pairs one count may have.
	maxPairs = 16
	// DefaultMaxKeys is how many distinct keys are kept in the key tables (of
	// all pairs together) when CountOptions.MaxKeys is zero. Beyond it
	// counting goes on and the table says it is truncated.
	DefaultMaxKeys = 25000
	// maxKeyBytes is the longest key kept; longer captures are cut to it.
	maxKeyBytes = 256
	// MaxLineBytes is the longest line held in memory at once. Longer lines are
	// still counted exactly (literals are searched in overlapping windows,
	// regexps read the line as a stream); keys and timestamps come from their
	// first MaxLineBytes.
	MaxLineBytes = 8 << 20
)

// Pattern is one pattern to count: a literal (matched like grep -F) or an RE2
// regexp (matched like grep -E) when Regexp is set. A line counts once per
// pattern, however often the pattern occurs in it.
type Pattern struct {
	// Text is the literal or the regexp.
	Text string `json:"pattern"`
	// Regexp marks Text as an RE2 regular expression.
	Regexp bool `json:"regexp,omitempty"`
}

// String renders the pattern for tables: the literal itself, or /regexp/.
func (p Pattern) String() string {
	if p.Regexp {
		return "/" + p.Text + "/"
	}
	return p.Text
}

// Literal returns a literal pattern.
func Literal(text string) Pattern { return Pattern{Text: text} }

// Regexp returns a regexp pattern.
func Regexp(expr string) Pattern { return Pattern{Text: expr, Regexp: true} }

// matcher finds the lines that match one pattern.
type matcher struct {
	pattern Pattern
	every   bool           // the empty literal: every line matches
	finders []finder       // the literal, or literals one of which every match of re contains
	re      *regexp.Regexp // nil for a literal
}

// matchState remembers, within one block, where each finder of a matcher
// next occurs, so that a set of literals is scanned once, not once per hit.
type matchState struct {
	next []int // per finder: next occurrence at or after the position it was found from; -1 unknown
}

// reset forgets the positions, for a new block.
func (st *matchState) reset(n int) {
	st.next = st.next[:0]
	for range n {
		st.next = append(st.next, -1)
	}
}

// compileLogPattern validates p and prepares its matcher; ranks and sample
// tune the literal scan to the input.
func compileLogPattern(p Pattern, ranks *byteRanks, sample []byte) (*matcher, error) {
	if err := checkLogPattern(p); err != nil {
		return nil, err
	}
	m := &matcher{pattern: p}
	if !p.Regexp {
		if p.Text == "" {
			m.every = true
			return m, nil
		}
		m.finders = []finder{newLogFinder([]byte(p.Text), false, ranks, sample)}
		return m, nil
	}
	re, cands, err := compileLogRegexp(p.Text)
	if err != nil {
		return nil, err
	}
	m.re = re
	for _, r := range bestReqs(cands, sample) {
		m.finders = append(m.finders, newLogFinder(r.text, r.fold, ranks, sample))
	}
	return m, nil
}

// checkLogPattern applies the limits and rules every pattern must meet.
func checkLogPattern(p Pattern) error {
	if len(p.Text) > maxPatternBytes {
		return fmt.Errorf("%w: pattern %.40q… is %d bytes long; the limit is %d", analyze.ErrInvalidParameter, p.Text, len(p.Text), maxPatternBytes)
	}
	if strings.ContainsAny(p.Text, "\n") {
		return fmt.Errorf("%w: pattern %q contains a line break; logs are matched line by line", analyze.ErrInvalidParameter, p.Text)
	}
	return nil
}

// compileLogRegexp compiles expr as RE2 and finds the sets of literals one of
// which every match contains, for use as a prefilter. Errors name the pattern
// and the cause.
func compileLogRegexp(expr string) (*regexp.Regexp, [][]req, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: regexp %q: %v", analyze.ErrInvalidParameter, expr, err)
	}
	return re, requiredSets(expr), nil
}

// next returns the first matching line that starts at or after from, which is
// a line start in b: ls is its first byte and le the index of its '\n' (or
// len(b) for an unterminated last line). st carries the finders' positions
// between calls on the same block; from must not decrease between them.
func (m *matcher) next(b []byte, from int, st *matchState) (ls, le int, ok bool) {
	switch {
	case m.every:
		if from >= len(b) {
			return 0, 0, false
		}
		return from, lineEnd(b, from), true
	case len(m.finders) > 0:
		for from < len(b) {
			p := -1
			for i := range m.finders {
				if st.next[i] < from && st.next[i] != len(b) {
					if j := m.finders[i].index(b[from:]); j >= 0 {
						st.next[i] = from + j
					} else {
						st.next[i] = len(b)
					}
				}
				if p < 0 || st.next[i] < p {
					p = st.next[i]
				}
			}
			if p >= len(b) {
				return 0, 0, false
			}
			ls = bytes.LastIndexByte(b[from:p], '\n') + 1 + from
			le = lineEnd(b, p)
			if m.re == nil || m.re.Match(b[ls:le]) {
				return ls, le, true
			}
			from = le + 1
		}
		return 0, 0, false
	}
	for from < len(b) {
		le = lineEnd(b, from)
		if m.re.Match(b[from:le]) {
			return from, le, true
		}
		from = le + 1
	}
	return 0, 0, false
}

// count returns how many lines of b match.
func (m *matcher) count(b []byte, st *matchState) int64 {
	st.reset(len(m.finders))
	var n int64
	for from := 0; ; {
		_, le, ok := m.next(b, from, st)
		if !ok {
			return n
		}
		n++
		from = le + 1
	}
}

// matchLine reports whether one line (without its '\n') matches.
func (m *matcher) matchLine(line []byte) bool {
	switch {
	case m.every:
		return true
	case m.re != nil:
		return m.re.Match(line)
	}
	return m.finders[0].index(line) >= 0
}

// lineEnd returns the index of the first '\n' at or after i, or len(b).
func lineEnd(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	if e := bytes.IndexByte(b[i:], '\n'); e >= 0 {
		return i + e
	}
	return len(b)
}

// countLines counts lines the way grep does: every '\n' ends one, and bytes
// after the last '\n' make one more.
func countLines(b []byte) int64 {
	n := int64(bytes.Count(b, []byte{'\n'}))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}
