package logs

import (
	"cmp"
	"slices"
	"unicode/utf8"
)

// Limits of the overview. The template tables never hold more than
// MaxTemplates templates of at most MaxTemplateBytes each (with their field
// kinds and a sample of templateSample bytes), so an overview's memory is
// bounded by a few MiB per table however many distinct lines a log has; a
// count holds one table per part in flight and one merged.
const (
	// MaxTemplates is the most distinct templates a table keeps. Lines of
	// templates first seen after it is full are counted as overflow.
	MaxTemplates = 1000
	// TemplateRows is the most templates a report lists, most frequent first.
	TemplateRows = 200
	// templateSample is the longest sample line kept per template.
	templateSample = 256
	// templateOverhead estimates a template's bookkeeping beyond its bytes
	// (map entry, struct, slice and string headers).
	templateOverhead = 160
)

// Overview is what every log says without a pattern: its lines by level, its
// lines over time (Bucket.Levels) and its most frequent message templates.
type Overview struct {
	// Levels counts the lines of each level, in the order of LevelNames
	// (FATAL first, lines without a level last).
	Levels []LevelCount `json:"levels"`
	// Templates lists the most frequent templates (at most TemplateRows), most
	// lines first. Each Count is exact: the number of lines matching Regexp,
	// what `grep -cE` of it prints over the files.
	Templates []Template `json:"templates"`
	// Trouble lists the templates of FATAL, ERROR and WARN lines (by the level
	// of a template's first line), most lines first, at most TemplateRows:
	// what a reader looks at first, however rare beside the INFO lines.
	Trouble []Template `json:"trouble"`
	// Distinct is the number of distinct templates kept (at most
	// MaxTemplates), listed or not.
	Distinct int `json:"distinct"`
	// OtherLines counts the lines in no listed template.
	OtherLines int64 `json:"other_lines"`
	// Untemplated counts the lines that have no template: control characters,
	// invalid UTF-8, a key longer than MaxTemplateBytes, or longer than
	// MaxLineBytes.
	Untemplated int64 `json:"untemplated"`
	// Overflow counts the lines whose template was first seen after a table
	// was full, and Truncated says some were: their templates are not listed.
	Overflow  int64 `json:"overflow"`
	Truncated bool  `json:"truncated,omitempty"`
	// TemplateBytes is the memory the merged template table held.
	TemplateBytes int64 `json:"template_bytes"`
	// UntimedLines counts lines before the first timestamp of their file (in
	// no bucket).
	UntimedLines int64 `json:"untimed_lines,omitempty"`
}

// LevelCount is the number of lines of one level.
type LevelCount struct {
	Level string `json:"level"`
	Lines int64  `json:"lines"`
}

// Template is one message template and the lines that have it.
type Template struct {
	// Template is the line with its fields shown as <NUM>, <IP>, <HEX>,
	// <UUID>, <DATE> or <*>.
	Template string `json:"template"`
	// Regexp is the template as an anchored regular expression that GNU grep
	// -E and RE2 read alike.
	Regexp string `json:"regexp"`
	// Count is the number of lines matching Regexp.
	Count int64 `json:"count"`
	// Level is the level of its first line.
	Level string `json:"level"`
	// Sample is its first line, cut to 256 bytes.
	Sample string `json:"sample"`
	// First is where that line is, with the timestamp in effect there (its
	// own, or the last one before it in its file).
	First Place `json:"first"`
	// Last is where its last line is, with the timestamp in effect there.
	Last Place `json:"last"`
}

// templateStat is one template of a table.
type templateStat struct {
	key      string
	kinds    []uint8
	count    int64
	sample   string
	level    int
	file     int   // merged tables: the file of the first line
	line     int64 // part tables: part-relative index; merged: line number
	complete bool  // merged tables: every line of it was counted
	// at and lastAt are the times in effect at its first and last lines and
	// where its last line is (part-relative while scanning, resolved when
	// merged), set by overviewCount when the overview has buckets.
	at, lastAt keyMark
}

// templateTable counts the templates of a part, or of a whole count.
type templateTable struct {
	m        map[string]*templateStat
	order    []*templateStat // first seen first
	overflow int64           // lines of templates refused once full
	bytes    int64
}

func newLogTemplateTable() *templateTable {
	return &templateTable{m: map[string]*templateStat{}}
}

// add counts one line whose template key and field kinds are given. It
// returns the template's entry, or nil when the table is full and refused it.
func (t *templateTable) add(key []byte, kinds []uint8, text []byte, level int, line int64) *templateStat {
	if st, ok := t.m[string(key)]; ok {
		st.count++
		for i, k := range kinds {
			st.kinds[i] |= k
		}
		return st
	}
	if len(t.m) >= MaxTemplates {
		t.overflow++
		return nil
	}
	st := &templateStat{key: string(key), kinds: append([]uint8(nil), kinds...), count: 1,
		sample: cutSample(text), level: level, line: line}
	t.insert(st)
	return st
}

func (t *templateTable) insert(st *templateStat) {
	t.m[st.key] = st
	t.order = append(t.order, st)
	t.bytes += int64(len(st.key)+len(st.kinds)+len(st.sample)) + templateOverhead
}

// cutSample cuts a line to templateSample bytes at a rune boundary.
func cutSample(text []byte) string {
	if len(text) <= templateSample {
		return string(text)
	}
	cut := templateSample
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return string(text[:cut])
}

// overviewPart is the overview of one part.
type overviewPart struct {
	levels      [NumLevels]int64
	table       *templateTable
	untemplated int64
}

// overview masks, levels and buckets every line of a block of whole lines
// (the last may lack its '\n'), finding their ends overviewEnds at a time.
// It returns how many lines it counted: countLines(b).
func (s *scanner) overview(b []byte) int64 {
	line := s.line
	if cap(s.ends) < overviewEnds {
		s.ends = make([]int32, 0, overviewEnds)
	}
	batch := hasSkelAVX2 && !fastDisabled
	for from := 0; from < len(b); {
		ends, more := newlines(b, from, s.ends[:0])
		// Most lines are found in the skeleton cache: look them up
		// together, then count them; the others take the whole way.
		var slots []int16
		var asOf uint32
		if batch && !s.skel.off && len(ends) > 0 {
			slots, asOf = s.skel.probeBatch(b, ends, from)
		}
		for k, le := range ends {
			text := b[from:le]
			if e := s.skel.hitAt(slots, k, asOf); e != nil {
				s.part.ov.countSkeleton(e)
				s.overviewCount(text, e.level, e.stat, line)
			} else {
				s.overviewLine(text, line, false)
			}
			line++
			from = int(le) + 1
		}
		if !more { // no '\n' after from
			if from < len(b) {
				s.overviewLine(b[from:], line, false)
				line++
			}
			break
		}
	}
	return line - s.line
}

// overviewEnds is how many line ends the overview finds at once.
const overviewEnds = 512

// overviewLine counts one line (part-relative index line) in the overview;
// long lines (only their head is here) get a level and a bucket, no template.
func (s *scanner) overviewLine(text []byte, line int64, long bool) {
	if long {
		text = text[:min(len(text), 2*levelScan)]
	}
	level, st := s.template(s.part.ov, text, line, long)
	s.overviewCount(text, level, st, line)
}

// overviewCount counts a line of the given level in the part's levels and
// its bucket, and marks it as the last line of its template st (nil: none
// kept), the first too when it is the template's first line in the part.
func (s *scanner) overviewCount(text []byte, level int, st *templateStat, line int64) {
	p := s.part
	p.ov.levels[level]++
	if p.buckets == nil {
		if st != nil {
			st.lastAt = keyMark{line: line, state: timeNone}
		}
		return
	}
	col := len(s.plan.patterns) + level
	if s.times {
		if ms, ok := s.days.Parse(text); ok {
			s.ovEff, s.ovOK = ms, true
		}
	}
	if s.times && s.ovOK {
		p.bucketsAt(s.ovEff).addOne(&s.ovBucket, s.ovEff, col)
	} else {
		p.pending[col]++
	}
	if st != nil {
		mk := keyMark{line: line, state: timeNone}
		switch {
		case s.times && s.ovOK:
			mk.ms, mk.state = s.ovEff, timeKnown
		case s.times:
			mk.state = timePending // the time in effect where the part starts
		}
		if st.count == 1 {
			st.at = mk
		}
		st.lastAt = mk
	}
}

// template counts the template of one line in the part's table and returns
// the line's level: through the skeleton cache (template_skeleton.go) when a
// line of the same skeleton was counted before, else through the fast path
// (template_fast.go) when the line's template is in the scanner's trie, else
// through the masker, adding the template to the trie; the last two keep the
// line's skeleton.
func (s *scanner) template(ov *overviewPart, text []byte, line int64, long bool) (int, *templateStat) {
	var hash uint64
	if !long && !fastDisabled {
		var e *skelEntry
		if e, hash = s.skel.lookup(text); e != nil {
			ov.countSkeleton(e)
			return e.level, e.stat
		}
		if leaf, level := s.fast.match(text); leaf != nil {
			if st := leaf.stat; st != nil {
				st.count++
				for i, k := range s.fast.fieldKinds() {
					st.kinds[i] |= k
				}
			} else {
				ov.table.overflow++
			}
			s.skel.keep(text, hash, leaf.stat, level)
			return level, leaf.stat
		}
	}
	level, ok := s.masker.mask(text)
	if !ok || long {
		ov.untemplated++
		return level, nil
	}
	st := ov.table.add(s.masker.key, s.masker.kinds, text, level, line)
	s.fast.insert(s.masker.key, st)
	if !fastDisabled {
		s.skel.keep(text, hash, st, level)
	}
	return level, st
}

// countSkeleton counts a line found in the skeleton cache in the entry's
// template (its kinds are the template's already), or as overflow when the
// table refused the template.
func (ov *overviewPart) countSkeleton(e *skelEntry) {
	if e.stat != nil {
		e.stat.count++
	} else {
		ov.table.overflow++
	}
}

// fastDisabled turns the fast path off, for tests that compare it with
// the masker.
var fastDisabled = false

// overviewMerge adds the overviews of parts up, in input order.
type overviewMerge struct {
	levels      [NumLevels]int64
	table       *templateTable
	untemplated int64
	overflow    int64
	// refused is set once some part or the merged table refused a template:
	// templates first merged after that may have lost lines there.
	refused bool
}

// addOverview merges the overview of the next part. A template's count stays
// exact only if every part that refused templates kept it: the others are
// marked incomplete and left out of the report.
func (m *merger) addOverview(p *partResult) {
	g, po := m.ov, p.ov
	for i, n := range po.levels {
		g.levels[i] += n
	}
	g.untemplated += po.untemplated
	for _, st := range po.table.order {
		if gs, ok := g.table.m[st.key]; ok {
			gs.count += st.count
			for i, k := range st.kinds {
				gs.kinds[i] |= k
			}
			gs.lastAt = st.lastAt
			m.resolve(&gs.lastAt)
			continue
		}
		if len(g.table.m) >= MaxTemplates {
			g.overflow += st.count
			g.refused = true
			continue
		}
		ns := *st
		ns.file, ns.line, ns.complete = m.file, m.fileLines+st.line+1, !g.refused
		m.resolve(&ns.at)
		m.resolve(&ns.lastAt)
		g.table.insert(&ns)
	}
	if po.table.overflow > 0 {
		g.overflow += po.table.overflow
		g.refused = true
		for _, gs := range g.table.order {
			if _, ok := po.table.m[gs.key]; !ok {
				gs.complete = false
			}
		}
	}
}

// overviewReport builds the report's overview.
func (m *merger) overviewReport(r *Report) *Overview {
	g := m.ov
	o := &Overview{Distinct: len(g.table.m), Untemplated: g.untemplated, Overflow: g.overflow,
		Truncated: g.refused, TemplateBytes: g.table.bytes, Templates: []Template{}}
	for i, n := range g.levels {
		o.Levels = append(o.Levels, LevelCount{Level: LevelNames[i], Lines: n})
	}
	if m.untimed != nil {
		for _, n := range m.untimed[len(m.plan.patterns):] {
			o.UntimedLines += n
		}
	}
	var kept []*templateStat
	for _, st := range g.table.order {
		if st.complete {
			kept = append(kept, st)
		}
	}
	slices.SortStableFunc(kept, func(a, b *templateStat) int {
		if c := cmp.Compare(b.count, a.count); c != 0 {
			return c
		}
		if c := cmp.Compare(a.file, b.file); c != 0 {
			return c
		}
		return cmp.Compare(a.line, b.line)
	})
	listed := int64(0)
	template := func(st *templateStat) Template {
		return Template{
			Template: templateText(st.key, st.kinds), Regexp: templateRegexp(st.key, st.kinds),
			Count: st.count, Level: LevelNames[st.level], Sample: st.sample,
			First: placeOf(keyMark{file: st.file, line: st.line, ms: st.at.ms, state: st.at.state}, r.Files),
			Last:  placeOf(st.lastAt, r.Files),
		}
	}
	o.Trouble = []Template{}
	for i, st := range kept {
		if i < TemplateRows {
			o.Templates = append(o.Templates, template(st))
			listed += st.count
		}
		if st.level <= LevelWarn && len(o.Trouble) < TemplateRows {
			o.Trouble = append(o.Trouble, template(st))
		}
	}
	o.OtherLines = r.Lines - listed
	return o
}
