package logs

import (
	"github.com/leakui/leakui/analyze"

	"sync"
	"time"
)

// merger adds parts up in input order: it turns part-relative line numbers
// into file line numbers, gives lines before a part's first timestamp the one in
// effect at the end of the part before, and sums counts, buckets and keys.
type merger struct {
	plan    *countPlan
	files   []FileReport
	counts  [][]int64 // per file, per pattern
	untimed []int64
	buckets *timeBuckets
	// yearless holds the counts of timestamps without a year (syslog, geth),
	// apart: they cannot share a time axis with dated ones.
	yearless *timeBuckets
	keys     []*keyTable
	unkeyed  [][2]int64
	spans    []spanPart // resolved marks
	long     int64
	ov       *overviewMerge
	mu       sync.Mutex // guards buckets against bucketsSnapshot

	file      int
	fileLines int64
	eff       int64 // the timestamp in effect at the end of the merged parts…
	effOK     bool  // …in the current file
}

func newLogMerger(pl *countPlan, files int) *merger {
	m := &merger{plan: pl, files: make([]FileReport, files), counts: make([][]int64, files)}
	for i := range m.counts {
		m.counts[i] = make([]int64, len(pl.patterns))
	}
	if pl.bucket != BucketNone {
		m.buckets = newLogBuckets(pl.bucket, pl.columns())
		m.yearless = newLogBuckets(pl.bucket, pl.columns())
		m.untimed = make([]int64, pl.columns())
	}
	if pl.overview {
		m.ov = &overviewMerge{table: newLogTemplateTable()}
	}
	if pl.keyed {
		m.keys = make([]*keyTable, len(pl.pairs))
		for i, pr := range pl.pairs {
			if pr.key != nil {
				m.keys[i] = newLogKeyTable(pl.maxKeys)
			}
		}
		m.unkeyed = make([][2]int64, len(pl.pairs))
	}
	m.spans = make([]spanPart, len(pl.spans))
	return m
}

// startFile begins merging the parts of input file.
func (m *merger) startFile(file int) {
	m.file, m.fileLines, m.effOK = file, 0, false
}

// describe records what an input is.
func (m *merger) describe(file int, head []byte, c analyze.Compression) {
	m.files[file].Compression = c
	if len(head) == 0 {
		m.files[file].Kind = string(analyze.KindLog)
		return
	}
	m.files[file].Kind = string(analyze.DetectKind(head).Kind)
}

// add merges the next part of the current file.
func (m *merger) add(p *partResult) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := &m.files[m.file]
	f.Lines += p.lines
	f.Bytes += p.bytes
	f.LongLines += p.long
	m.long += p.long
	for i, n := range p.counts {
		m.counts[m.file][i] += n
	}
	if m.buckets != nil {
		for i, n := range p.pending {
			switch {
			case n == 0:
			case m.effOK:
				m.bucketsFor(m.eff).add(m.eff, i, n)
			default:
				m.untimed[i] += n
			}
		}
		if p.buckets.n > 0 {
			m.buckets.merge(p.buckets)
		}
		if p.yearless.n > 0 {
			m.yearless.merge(p.yearless)
		}
	}
	for i, t := range p.keys {
		if t == nil {
			continue
		}
		g := m.keys[i]
		g.truncated = g.truncated || t.truncated
		for k, key := range t.keys {
			st := t.states[k]
			m.resolve(&st.first)
			m.resolve(&st.last)
			if gs := g.getString(key); gs != nil {
				gs.merge(&st)
			}
		}
	}
	for i, u := range p.unkeyed {
		m.unkeyed[i][0] += u[0]
		m.unkeyed[i][1] += u[1]
	}
	for i := range p.spans {
		m.mergeSpan(&m.spans[i], p.spans[i])
	}
	if m.ov != nil {
		m.addOverview(p)
	}
	m.fileLines += p.lines
	if p.endOK {
		m.eff, m.effOK = p.end, true
	}
}

// mergeSpan adds the next part's marks of a span to those of the parts before.
func (m *merger) mergeSpan(g *spanPart, p spanPart) {
	for _, sp := range []*spot{&p.from, &p.toFirst, &p.toAfter, &p.elseLast} {
		if sp.ok {
			m.resolve(&sp.keyMark)
		}
	}
	switch {
	case !g.from.ok:
		g.from, g.toAfter = p.from, p.toAfter
	case !g.toAfter.ok:
		g.toAfter = p.toFirst
	}
	if !g.toFirst.ok {
		g.toFirst = p.toFirst
	}
	if p.elseLast.ok {
		g.elseLast = p.elseLast
	}
}

// resolve turns a part-relative mark into a file line and a known time.
func (m *merger) resolve(mk *keyMark) {
	mk.file = m.file
	mk.line += m.fileLines + 1
	if mk.state == timePending {
		if m.effOK {
			mk.ms, mk.state = m.eff, timeKnown
		} else {
			mk.state = timeNone
		}
	}
}

// report builds the final report.
func (m *merger) report(inputs []Input) *Report {
	pl := m.plan
	r := &Report{Files: m.files, Preset: pl.preset, LongLines: m.long, Pairs: []PairReport{}, Buckets: []Bucket{}}
	for i, in := range inputs {
		r.Files[i].Name = in.Name
		r.Lines += r.Files[i].Lines
		r.Bytes += r.Files[i].Bytes
	}
	totals := make([]int64, len(pl.patterns))
	r.Patterns = make([]PatternCount, len(pl.patterns))
	for i, p := range pl.patterns {
		pc := PatternCount{Pattern: p.Text, Regexp: p.Regexp, Files: make([]int64, len(inputs))}
		for f := range inputs {
			pc.Files[f] = m.counts[f][i]
			pc.Count += m.counts[f][i]
		}
		totals[i] = pc.Count
		r.Patterns[i] = pc
	}
	for i, pp := range pl.pairs {
		pr := PairReport{Name: pp.Name, Start: pp.Start, Close: pp.Close, Key: pp.Pair.Key,
			Starts: totals[pp.start], Closes: totals[pp.close], UnclosedKeys: []OpenKey{}, Basis: BasisCounts}
		pr.Open = pr.Starts - pr.Closes
		if m.keys != nil && m.keys[i] != nil {
			m.keyReport(&pr, m.keys[i], r.Files)
			pr.UnkeyedStarts, pr.UnkeyedCloses = m.unkeyed[i][0], m.unkeyed[i][1]
		}
		pr.judge(pp.Pair)
		r.Pairs = append(r.Pairs, pr)
	}
	for i, sp := range pl.spans {
		r.Spans = append(r.Spans, spanReport(sp.Span, m.spans[i], r.Files))
	}
	if m.buckets != nil {
		m.bucketReport(r)
	}
	if m.ov != nil {
		r.Overview = m.overviewReport(r)
	}
	return r
}

// keyReport fills the key figures of one pair.
func (m *merger) keyReport(pr *PairReport, t *keyTable, files []FileReport) {
	pr.KeysTruncated = t.truncated
	for k, key := range t.keys {
		st := &t.states[k]
		if st.starts > 0 {
			pr.KeysStarted++
		}
		if st.closes > 0 {
			pr.KeysClosed++
		}
		if st.peak > 1 {
			pr.KeysShared++
			if st.peak > pr.SharedKeyPeak {
				pr.SharedKey, pr.SharedKeyPeak = key, st.peak
			}
		}
		if st.starts > st.closes {
			pr.UnclosedKeys = append(pr.UnclosedKeys, OpenKey{
				Key: key, Starts: st.starts, Closes: st.closes, Open: st.starts - st.closes,
				First: placeOf(st.first, files), Last: placeOf(st.last, files),
			})
		}
	}
	sortLogOpenKeys(pr.UnclosedKeys)
}

func placeOf(mk keyMark, files []FileReport) Place {
	p := Place{File: files[mk.file].Name, Line: mk.line}
	if mk.state == timeKnown {
		t := utcTime(mk.ms)
		p.Time = &t
	}
	return p
}

// yearOneMillis is 0001-01-01T00:00:00Z in Unix milliseconds: yearless
// timestamps (year 0) fall before it, dated ones after.
const yearOneMillis = -62135596800000

// bucketsFor picks the dated or the yearless bucket set for a time.
func (m *merger) bucketsFor(ms int64) *timeBuckets {
	if ms < yearOneMillis {
		return m.yearless
	}
	return m.buckets
}

// bucketReport fills the counts over time, with the running balance of each
// pair. Lines counted at timestamps without a year go on the time axis only when
// no counted line has a dated one; otherwise they count as untimed and the
// report says so. The choice depends on the counted lines only, never on which
// other timestamps a scan happened to see (the last of a block, the first of a
// file), so that it does not change with how the input was split.
func (m *merger) bucketReport(r *Report) {
	b := m.buckets
	dated, yearless := b.counted(), m.yearless.counted()
	switch {
	case dated && yearless:
		for k := int64(0); k < m.yearless.n; k++ {
			for i, n := range m.yearless.at(k) {
				m.untimed[i] += n
			}
		}
		r.YearlessUntimed = true
	case yearless || b.n == 0:
		b = m.yearless
	}
	npat := len(m.plan.patterns)
	r.Untimed = m.untimed[:npat]
	r.BucketWidened = b.widened
	if b.n == 0 {
		return
	}
	width := time.Duration(b.width) * time.Millisecond
	r.BucketWidth, r.BucketMillis = FormatDuration(width), b.width
	open := make([]int64, len(m.plan.pairs))
	for i, pp := range m.plan.pairs {
		open[i] = m.untimed[pp.start] - m.untimed[pp.close]
	}
	r.Buckets = make([]Bucket, 0, b.n)
	for k := int64(0); k < b.n; k++ {
		at := b.at(k)
		counts := append([]int64(nil), at[:npat]...)
		lb := Bucket{Start: utcTime((b.lo + k) * b.width), Counts: counts}
		if m.plan.overview {
			lb.Levels = append([]int64(nil), at[npat:]...)
		}
		if len(open) > 0 {
			lb.Open = make([]int64, len(open))
			for i, pp := range m.plan.pairs {
				open[i] += counts[pp.start] - counts[pp.close]
				lb.Open[i] = open[i]
			}
		}
		r.Buckets = append(r.Buckets, lb)
	}
	r.Yearless = r.Buckets[0].Start.Year() == Yearless
}

// bucketsSnapshot returns an empty bucket set at the current merged width, so
// that new parts start there instead of at the finest width. It is safe to
// call while merging: it reads only the width, under the merger's lock.
func (m *merger) bucketsSnapshot() *timeBuckets {
	if m.buckets == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.buckets.empty()
}

// fileBytes returns the bytes merged so far from the current file.
func (m *merger) fileBytes() int64 { return m.files[m.file].Bytes }
