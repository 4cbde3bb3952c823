package logs

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/web/page"
)

// logParams are the count parameters of a log report: the patterns, the
// start/close pairs, the preset and the bucket width. A report stores the
// upload's choice as its default; its URL may carry another set, which makes a
// new URL and never changes the report.
type Params struct {
	Patterns []logs.Pattern `json:"patterns,omitempty"`
	Pairs    []logs.Pair    `json:"pairs,omitempty"`
	Preset   string         `json:"preset,omitempty"`
	// Bucket is the width of the counts over time: "" (automatic), "none", or
	// a width such as "1m" or "7d".
	Bucket string `json:"bucket,omitempty"`
}

// The query parameters of a log report. Rows are numbered from 1: pN is the
// N-th pattern (reN=1 makes it an RE2 regexp), pairN the N-th pair as
// NAME=START,CLOSE (preN=1: regexps; keyN: its key regexp). preset and bucket
// stand alone.
const (
	logParamPattern  = "p"
	logParamRegexp   = "re"
	logParamPair     = "pair"
	logParamPairRe   = "pre"
	logParamPairKey  = "key"
	logParamPreset   = "preset"
	logParamBucket   = "bucket"
	logMaxRowIndex   = 999
	logMaxPairName   = 100
	logDefaultKeyRow = 50
	// logMaxBucket is the widest bucket accepted (what logs.ParseDuration reads
	// in days).
	logMaxBucket = 100000 * 24 * time.Hour
)

// logRowKey matches the numbered parameters: a prefix and a row number from 1
// to 999 without leading zeros.
var logRowKey = regexp.MustCompile(`^(p|re|pair|pre|key)([1-9][0-9]{0,2})$`)

// logRawRow is one pattern row or pair row as a form sent it.
type logRawRow struct {
	Text   string
	Regexp bool
	Key    string // pairs only
}

// logRawParams are the count parameters as given, before they are checked:
// what a form shows again when they are wrong.
type logRawParams struct {
	Patterns []logRawRow
	Pairs    []logRawRow
	Preset   string
	Bucket   string
}

// logQueryHasParams reports whether a query or form carries count parameters
// at all; without any, a report shows its own.
func logQueryHasParams(v url.Values) bool {
	if v.Has(logParamPreset) || v.Has(logParamBucket) {
		return true
	}
	for k := range v {
		if logRowKey.MatchString(k) {
			return true
		}
	}
	return false
}

// readLogRaw collects the rows of a query or form in row order; rows whose
// text is empty are left out (a form's blank rows), so numbering may have gaps.
func readLogRaw(v url.Values) logRawParams {
	type row struct {
		n    int
		pair bool
	}
	var rows []row
	for k := range v {
		m := logRowKey.FindStringSubmatch(k)
		if m == nil || (m[1] != logParamPattern && m[1] != logParamPair) {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		rows = append(rows, row{n, m[1] == logParamPair})
	}
	slices.SortFunc(rows, func(a, b row) int { return a.n - b.n })
	on := func(k string) bool {
		switch strings.ToLower(v.Get(k)) {
		case "1", "on", "true", "yes":
			return true
		}
		return false
	}
	var raw logRawParams
	for _, r := range rows {
		n := strconv.Itoa(r.n)
		if r.pair {
			rr := logRawRow{Text: v.Get(logParamPair + n), Regexp: on(logParamPairRe + n), Key: v.Get(logParamPairKey + n)}
			if rr.Text != "" || rr.Key != "" {
				raw.Pairs = append(raw.Pairs, rr)
			}
			continue
		}
		if t := v.Get(logParamPattern + n); t != "" {
			raw.Patterns = append(raw.Patterns, logRawRow{Text: t, Regexp: on(logParamRegexp + n)})
		}
	}
	raw.Preset = strings.TrimSpace(v.Get(logParamPreset))
	raw.Bucket = strings.TrimSpace(v.Get(logParamBucket))
	return raw
}

// params checks the rows and returns the parameters; errors wrap
// analyze.ErrInvalidParameter (a 400) and name the row and the problem. The
// engine's own limits and regexp checks run too, so every error shows before
// anything is counted.
func (raw logRawParams) params() (Params, error) {
	var p Params
	for _, r := range raw.Patterns {
		p.Patterns = append(p.Patterns, logs.Pattern{Text: r.Text, Regexp: r.Regexp})
	}
	for i, r := range raw.Pairs {
		if r.Text == "" {
			return p, fmt.Errorf("%w: pair %d has a key regexp but no NAME=START,CLOSE", analyze.ErrInvalidParameter, i+1)
		}
		pr, err := logs.ParsePair(r.Text, r.Regexp)
		if err != nil {
			return p, err
		}
		if err := checkLogPairName(pr.Name); err != nil {
			return p, err
		}
		pr.Key = r.Key
		p.Pairs = append(p.Pairs, pr)
	}
	p.Preset = raw.Preset
	if p.Preset != "" {
		if _, ok := logs.LookupPreset(p.Preset); !ok {
			return p, fmt.Errorf("%w: unknown preset %q (known: %s)", analyze.ErrInvalidParameter, p.Preset,
				strings.Join(logs.PresetNames(), ", "))
		}
	}
	bucket, err := normalizeLogBucket(raw.Bucket)
	if err != nil {
		return p, err
	}
	p.Bucket = bucket
	if err := logs.ValidateCountOptions(p.options(0)); err != nil {
		return p, err
	}
	return p, nil
}

// checkLogPairName keeps pair names printable, short, and harmless in a
// spreadsheet (the CSV's first column): no formula characters first.
func checkLogPairName(name string) error {
	switch {
	case len(name) > logMaxPairName:
		return fmt.Errorf("%w: pair name %.40q… is longer than %d bytes", analyze.ErrInvalidParameter, name, logMaxPairName)
	case strings.ContainsFunc(name, func(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' }):
		return fmt.Errorf("%w: pair name %q contains a control character", analyze.ErrInvalidParameter, name)
	case strings.ContainsAny(name[:1], "=+-@"):
		return fmt.Errorf("%w: pair name %q must not start with = + - or @ (a spreadsheet would read it as a formula)", analyze.ErrInvalidParameter, name)
	}
	return nil
}

// normalizeLogBucket reads a bucket width: "" or "auto" for automatic, "none"
// (or "off", "0") for no counts over time, or a width, returned in the form
// logs.FormatDuration writes.
func normalizeLogBucket(s string) (string, error) {
	switch strings.ToLower(s) {
	case "", "auto":
		return "", nil
	case "none", "off", "0":
		return "none", nil
	}
	d, err := logs.ParseDuration(s)
	if err != nil {
		return "", err
	}
	if d < time.Millisecond {
		return "", fmt.Errorf("%w: bucket width %v is below the 1ms resolution of log timestamps", analyze.ErrInvalidParameter, d)
	}
	if d > logMaxBucket {
		return "", fmt.Errorf("%w: bucket width %q is wider than %s", analyze.ErrInvalidParameter, s, logs.FormatDuration(logMaxBucket))
	}
	return logs.FormatDuration(d), nil
}

// bucket returns the width for logs.CountOptions.
func (p Params) bucket() time.Duration {
	switch p.Bucket {
	case "":
		return logs.BucketAuto
	case "none":
		return logs.BucketNone
	}
	d, err := logs.ParseDuration(p.Bucket)
	if err != nil {
		return logs.BucketAuto // stored parameters were checked when stored
	}
	return d
}

// options returns the engine's options; maxInput caps each input after
// decompression (0: no cap).
func (p Params) options(maxInput int64) logs.CountOptions {
	return logs.CountOptions{Patterns: p.Patterns, Pairs: p.Pairs, Preset: p.Preset, Bucket: p.bucket(), MaxInputBytes: maxInput, Overview: true}
}

// values renders the parameters as query parameters, rows numbered from 1.
// preset is always there (maybe empty), so that even an empty set of
// parameters is told apart from the report's default.
func (p Params) values() url.Values {
	v := url.Values{}
	for i, pt := range p.Patterns {
		n := strconv.Itoa(i + 1)
		v.Set(logParamPattern+n, pt.Text)
		if pt.Regexp {
			v.Set(logParamRegexp+n, "1")
		}
	}
	for i, pr := range p.Pairs {
		n := strconv.Itoa(i + 1)
		v.Set(logParamPair+n, pr.Name+"="+escapeLogPairPattern(pr.Start.Text)+","+escapeLogPairPattern(pr.Close.Text))
		if pr.Start.Regexp {
			v.Set(logParamPairRe+n, "1")
		}
		if pr.Key != "" {
			v.Set(logParamPairKey+n, pr.Key)
		}
	}
	v.Set(logParamPreset, p.Preset)
	if p.Bucket != "" {
		v.Set(logParamBucket, p.Bucket)
	}
	return v
}

// escapeLogPairPattern writes a pattern for NAME=START,CLOSE: a backslash as
// \\ and a comma as \, (what logs.ParsePair reads back).
func escapeLogPairPattern(s string) string {
	return strings.NewReplacer(`\`, `\\`, `,`, `\,`).Replace(s)
}

// key is the canonical text of the parameters, for caches and comparisons.
func (p Params) Key() string { return p.values().Encode() }

// raw returns the parameters as form rows, for the pattern form.
func (p Params) raw() logRawParams {
	var raw logRawParams
	for _, pt := range p.Patterns {
		raw.Patterns = append(raw.Patterns, logRawRow{Text: pt.Text, Regexp: pt.Regexp})
	}
	for _, pr := range p.Pairs {
		raw.Pairs = append(raw.Pairs, logRawRow{Text: pr.Name + "=" + escapeLogPairPattern(pr.Start.Text) + "," + escapeLogPairPattern(pr.Close.Text),
			Regexp: pr.Start.Regexp, Key: pr.Key})
	}
	raw.Preset, raw.Bucket = p.Preset, p.Bucket
	return raw
}

// asMap is the parameters as a report plan stores them.
func (p Params) asMap() map[string]any {
	m := map[string]any{}
	if len(p.Patterns) > 0 {
		m["patterns"] = p.Patterns
	}
	if len(p.Pairs) > 0 {
		m["pairs"] = p.Pairs
	}
	if p.Preset != "" {
		m["preset"] = p.Preset
	}
	if p.Bucket != "" {
		m["bucket"] = p.Bucket
	}
	return m
}

// logQuery is everything a log report's page, JSON, Markdown and CSV are
// parameterised by; all of it comes from the URL.
type logQuery struct {
	params Params
	// own is set when the parameters are the report's own (none in the URL,
	// or the same set).
	own bool
	// rows is how many keys never closed the page lists per pair; 0 for all.
	rows int
	// raw holds the rows as given, for a form to show again after an error.
	raw logRawParams
	// filter names the level the templates, the errors and warnings and the
	// chart of lines by level are filtered to (a name of logs.LevelNames); ""
	// for all. It is a view parameter: the count is the same.
	filter string
}

// level is the index in logs.LevelNames of the level filtered to, or -1.
func (q logQuery) level() int {
	for i, name := range logs.LevelNames {
		if q.filter != "" && name == q.filter {
			return i
		}
	}
	return -1
}

// logParamLevel filters a log report's page and JSON to one level.
const logParamLevel = "level"

// parseLogLevel reads the level filter: a name of logs.LevelNames in any
// case, or nothing for all levels.
func parseLogLevel(v url.Values) (int, error) {
	if !v.Has(logParamLevel) || v.Get(logParamLevel) == "" {
		return -1, nil
	}
	s := strings.TrimSpace(v.Get(logParamLevel))
	for i, name := range logs.LevelNames {
		if strings.EqualFold(s, name) {
			return i, nil
		}
	}
	return -1, fmt.Errorf("%w: unknown level %.40q (known: %s)", analyze.ErrInvalidParameter, s, strings.Join(logs.LevelNames[:], ", "))
}

// parseLogQuery reads a log report's query string against its stored
// parameters.
func parseLogQuery(v url.Values, def Params) (logQuery, error) {
	q := logQuery{params: def, own: true, raw: def.raw()}
	rows, err := page.QueryRows(v, logDefaultKeyRow, "keys")
	if err != nil {
		return q, err
	}
	q.rows = rows
	level, err := parseLogLevel(v)
	if err != nil {
		return q, err
	}
	if level >= 0 {
		q.filter = logs.LevelNames[level]
	}
	if !logQueryHasParams(v) {
		return q, nil
	}
	q.raw = readLogRaw(v)
	p, err := q.raw.params()
	if err != nil {
		return q, err
	}
	q.params, q.own = p, p.Key() == def.Key()
	return q, nil
}

// values renders the query canonically: the parameters only when they are not
// the report's own, and n when it is not the default.
func (q logQuery) values() url.Values {
	v := url.Values{}
	if !q.own {
		v = q.params.values()
	}
	switch {
	case q.rows == 0:
		v.Set("n", "all")
	case q.rows != logDefaultKeyRow:
		v.Set("n", strconv.Itoa(q.rows))
	}
	if q.filter != "" {
		v.Set(logParamLevel, q.filter)
	}
	return v
}

// levelURL is the query's URL under path filtered to a level (-1: all).
func (q logQuery) levelURL(path string, level int) string {
	return q.url(path, func(v url.Values) {
		v.Del(logParamLevel)
		if level >= 0 {
			v.Set(logParamLevel, logs.LevelNames[level])
		}
	})
}

// url renders the query under path, with changes applied.
func (q logQuery) url(path string, change func(v url.Values)) string {
	v := q.values()
	if change != nil {
		change(v)
	}
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

// countURL is the query's URL without the page's own parameter n: what the
// JSON, Markdown and CSV links carry (with the level filter, which the JSON
// and Markdown honour).
func (q logQuery) countURL(path string) string {
	return q.url(path, func(v url.Values) { v.Del("n") })
}
