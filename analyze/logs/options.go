package logs

import (
	"fmt"

	"github.com/leakui/leakui/analyze"

	"regexp"
	"runtime"
	"strings"
	"time"
)

// CountOptions says what Count counts. The zero value counts lines and
// bytes only.
type CountOptions struct {
	// Patterns are counted line by line, each on its own.
	Patterns []Pattern
	// Pairs are start/close patterns whose balance is reported; their patterns
	// are counted too.
	Pairs []Pair
	// Spans are times between lines (see Span); their patterns are counted
	// too.
	Spans []Span
	// Key is a regexp with a capture group applied to the lines of every pair
	// that has no Key of its own: the first group names what was started or
	// closed, so the keys started and never closed can be listed.
	Key string
	// Preset names a preset (see Presets) whose patterns and pairs are added
	// after the ones above.
	Preset string
	// Bucket is the width of the counts over time: BucketAuto (zero) picks
	// one for 50–300 bars, BucketNone turns them off.
	Bucket time.Duration
	// Overview adds what every log says without a pattern (Report.Overview):
	// lines by level, lines by level over time and the most frequent message
	// templates, from one more look at every line.
	Overview bool
	// MaxKeys caps the distinct keys kept, over all pairs (each keyed pair
	// gets an even share); zero means DefaultMaxKeys.
	MaxKeys int
	// MaxInputBytes caps each input's size after decompression (ErrTooLarge
	// past it); zero means no cap.
	MaxInputBytes int64
	// Workers is how many goroutines scan a plain file; zero means GOMAXPROCS.
	Workers int
	// Budget, when set, is charged with the most the count can hold (its
	// tables and buffers are bounded) before anything is read, and given it
	// back when Count returns: ErrTooLarge or ErrBusy, naming the limit, when
	// it has no room for them.
	Budget *analyze.Budget
	// Progress, when set, is called as input is consumed (about every 4 MiB,
	// and at the end of each input), always from the goroutine that called
	// Count.
	Progress func(Progress)

	// Test knobs: the read block, the parallel part size and the longest line
	// held in memory.
	blockSize, partSize, maxLine int
}

// Progress tells how far a count has got.
type Progress struct {
	// File is the index of the input being read.
	File int
	// Done is how many input bytes have been consumed so far, over all inputs
	// (compressed bytes for compressed inputs).
	Done int64
	// Total is the sum of the input sizes when they are known, else 0.
	Total int64
}

// Pair is a start pattern and a close pattern whose counts should balance,
// such as consumers started and stopped.
type Pair struct {
	Name  string  `json:"name"`
	Start Pattern `json:"start"`
	Close Pattern `json:"close"`
	// Key, if set, is a regexp whose first capture group names what a line of
	// this pair starts or closes; it overrides CountOptions.Key.
	Key string `json:"key,omitempty"`
	// Absent, set by presets, says what it means that neither line occurs
	// (which system writes them, and what to read instead); the report adds it
	// to PairReport.NotMeasurable.
	Absent string `json:"absent,omitempty"`
	// Shared, set by presets, says why the key may name several things at
	// once; the report adds it to PairReport.Fallback.
	Shared string `json:"shared,omitempty"`
}

// Span is the time from the first line matching From to the first line
// matching To after it or, when no To line follows, to the last line matching
// Else: how long a broker recovered its logs before it ran out of memory, or
// until it had loaded the last of them. Its patterns are counted like any
// other.
type Span struct {
	Name string  `json:"name"`
	From Pattern `json:"from"`
	To   Pattern `json:"to"`
	// Else is optional (empty Text).
	Else Pattern `json:"else,omitzero"`
	// Absent, set by presets, says what it means that no line matches From;
	// the report adds it to SpanReport.NotMeasurable.
	Absent string `json:"absent,omitempty"`
}

// ParsePair parses the command-line form NAME=START,CLOSE. A comma inside a
// pattern is written \, and a backslash \\. Both patterns are literals unless
// regexp is set.
func ParsePair(s string, regexp bool) (Pair, error) {
	name, rest, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(name) == "" {
		return Pair{}, fmt.Errorf("%w: pair %q: want NAME=START,CLOSE", analyze.ErrInvalidParameter, s)
	}
	var parts []string
	var cur strings.Builder
	for i := 0; i < len(rest); i++ {
		switch {
		case rest[i] == '\\' && i+1 < len(rest) && (rest[i+1] == ',' || rest[i+1] == '\\'):
			cur.WriteByte(rest[i+1])
			i++
		case rest[i] == ',':
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(rest[i])
		}
	}
	parts = append(parts, cur.String())
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return Pair{}, fmt.Errorf("%w: pair %q: want NAME=START,CLOSE with two non-empty patterns (write a comma inside a pattern as \\,)", analyze.ErrInvalidParameter, s)
	}
	return Pair{Name: name, Start: Pattern{parts[0], regexp}, Close: Pattern{parts[1], regexp}}, nil
}

// countPlan is the validated, input-independent form of the options.
type countPlan struct {
	patterns  []Pattern
	pairs     []pairPlan
	roles     [][]pairRole // per pattern: the pairs it starts or closes
	spans     []spanPlan
	spanRoles [][]spanRole // per pattern: the spans it begins or ends
	bucket    time.Duration
	times     bool // timestamps are needed (buckets or key tables)
	keyed     bool // some pair has a key regexp
	marked    bool // lines need their place: some pair has a key regexp, or there are spans
	maxKeys   int
	preset    string
	overview  bool // levels and templates of every line (CountOptions.Overview)
}

// columns is the number of counters per time bucket: one per pattern, then
// one per level when the overview is on.
func (pl *countPlan) columns() int {
	if pl.overview {
		return len(pl.patterns) + NumLevels
	}
	return len(pl.patterns)
}

type pairPlan struct {
	Pair
	start, close int // pattern indices
	key          *regexp.Regexp
}

type pairRole struct {
	pair  int
	start bool
}

type spanPlan struct {
	Span
	from, to, els int // pattern indices; els is -1 without Else
}

// The roles of a pattern in a span.
const (
	spanRoleFrom uint8 = iota
	spanRoleTo
	spanRoleElse
)

type spanRole struct {
	span int
	role uint8
}

// newLogPlan validates the options: limits, regexps (errors name the pattern
// and the cause, wrapping ErrInvalidParameter), the preset name.
func newLogPlan(o CountOptions) (*countPlan, error) {
	pl := &countPlan{bucket: o.Bucket, maxKeys: o.MaxKeys, preset: o.Preset, overview: o.Overview}
	if pl.maxKeys <= 0 {
		pl.maxKeys = DefaultMaxKeys
	}
	if o.Bucket < 0 && o.Bucket != BucketNone {
		return nil, fmt.Errorf("%w: bucket width %v is negative", analyze.ErrInvalidParameter, o.Bucket)
	}
	if o.Bucket > 0 && o.Bucket < time.Millisecond {
		return nil, fmt.Errorf("%w: bucket width %v is below the 1ms resolution of log timestamps", analyze.ErrInvalidParameter, o.Bucket)
	}
	patterns, pairs, spans := o.Patterns, o.Pairs, o.Spans
	if o.Preset != "" {
		p, ok := LookupPreset(o.Preset)
		if !ok {
			return nil, fmt.Errorf("%w: unknown preset %q (known: %s)", analyze.ErrInvalidParameter, o.Preset, strings.Join(PresetNames(), ", "))
		}
		patterns = append(slices0(patterns), p.Patterns...)
		pairs = append(slices0(pairs), p.Pairs...)
		spans = append(slices0(spans), p.Spans...)
	}
	if len(pairs) > maxPairs {
		return nil, fmt.Errorf("%w: %d pairs; the limit is %d", analyze.ErrInvalidParameter, len(pairs), maxPairs)
	}
	if len(spans) > maxPairs {
		return nil, fmt.Errorf("%w: %d spans; the limit is %d", analyze.ErrInvalidParameter, len(spans), maxPairs)
	}
	index := map[Pattern]int{}
	add := func(p Pattern) (int, error) {
		if i, ok := index[p]; ok {
			return i, nil
		}
		if err := checkLogPattern(p); err != nil {
			return 0, err
		}
		if p.Regexp {
			if _, _, err := compileLogRegexp(p.Text); err != nil {
				return 0, err
			}
		}
		if len(pl.patterns) >= MaxPatterns {
			return 0, fmt.Errorf("%w: more than %d patterns", analyze.ErrInvalidParameter, MaxPatterns)
		}
		index[p] = len(pl.patterns)
		pl.patterns = append(pl.patterns, p)
		pl.roles = append(pl.roles, nil)
		pl.spanRoles = append(pl.spanRoles, nil)
		return len(pl.patterns) - 1, nil
	}
	for _, p := range patterns {
		if _, err := add(p); err != nil {
			return nil, err
		}
	}
	defaultKey, err := compileLogKey(o.Key)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, pr := range pairs {
		if pr.Name == "" {
			return nil, fmt.Errorf("%w: a pair has no name", analyze.ErrInvalidParameter)
		}
		if names[pr.Name] {
			return nil, fmt.Errorf("%w: two pairs are named %q", analyze.ErrInvalidParameter, pr.Name)
		}
		names[pr.Name] = true
		pp := pairPlan{Pair: pr, key: defaultKey}
		if pr.Key != "" {
			if pp.key, err = compileLogKey(pr.Key); err != nil {
				return nil, err
			}
		}
		if pp.key != nil {
			pp.Pair.Key = pp.key.String()
			pl.keyed = true
		}
		if pp.start, err = add(pr.Start); err != nil {
			return nil, err
		}
		if pp.close, err = add(pr.Close); err != nil {
			return nil, err
		}
		n := len(pl.pairs)
		pl.roles[pp.start] = append(pl.roles[pp.start], pairRole{pair: n, start: true})
		pl.roles[pp.close] = append(pl.roles[pp.close], pairRole{pair: n, start: false})
		pl.pairs = append(pl.pairs, pp)
	}
	spanNames := map[string]bool{}
	for _, sp := range spans {
		if sp.Name == "" {
			return nil, fmt.Errorf("%w: a span has no name", analyze.ErrInvalidParameter)
		}
		if spanNames[sp.Name] {
			return nil, fmt.Errorf("%w: two spans are named %q", analyze.ErrInvalidParameter, sp.Name)
		}
		spanNames[sp.Name] = true
		sp2 := spanPlan{Span: sp, els: -1}
		if sp2.from, err = add(sp.From); err != nil {
			return nil, err
		}
		if sp2.to, err = add(sp.To); err != nil {
			return nil, err
		}
		if sp.Else.Text != "" {
			if sp2.els, err = add(sp.Else); err != nil {
				return nil, err
			}
		}
		n := len(pl.spans)
		pl.spanRoles[sp2.from] = append(pl.spanRoles[sp2.from], spanRole{span: n, role: spanRoleFrom})
		pl.spanRoles[sp2.to] = append(pl.spanRoles[sp2.to], spanRole{span: n, role: spanRoleTo})
		if sp2.els >= 0 {
			pl.spanRoles[sp2.els] = append(pl.spanRoles[sp2.els], spanRole{span: n, role: spanRoleElse})
		}
		pl.spans = append(pl.spans, sp2)
	}
	pl.marked = pl.keyed || len(pl.spans) > 0
	pl.times = o.Bucket != BucketNone || pl.marked
	// The key cap holds over all pairs: each keyed pair gets an even share.
	keyed := 0
	for _, pp := range pl.pairs {
		if pp.key != nil {
			keyed++
		}
	}
	if keyed > 1 {
		pl.maxKeys = max(1, pl.maxKeys/keyed)
	}
	return pl, nil
}

// compileLogKey compiles a key regexp, which must have a capture group.
func compileLogKey(expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, nil
	}
	if len(expr) > maxPatternBytes {
		return nil, fmt.Errorf("%w: key regexp is %d bytes long; the limit is %d", analyze.ErrInvalidParameter, len(expr), maxPatternBytes)
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("%w: key regexp %q: %v", analyze.ErrInvalidParameter, expr, err)
	}
	if re.NumSubexp() < 1 {
		return nil, fmt.Errorf("%w: key regexp %q has no capture group; put the key in parentheses, as in `consumer (\\S+)`", analyze.ErrInvalidParameter, expr)
	}
	return re, nil
}

// ValidateCountOptions reports the first problem with the options (an
// invalid regexp names the pattern and the error) without reading anything,
// so a form can be checked before an upload is counted.
func ValidateCountOptions(o CountOptions) error {
	_, err := newLogPlan(o)
	return err
}

// workers returns how many goroutines scan one plain input.
func (o CountOptions) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// slices0 returns a copy of s with room to append, so appending never writes
// into the caller's array.
func slices0[T any](s []T) []T { return append([]T(nil), s...) }
