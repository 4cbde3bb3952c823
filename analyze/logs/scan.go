package logs

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
)

// Default sizes of the scan: a block is read and searched while it sits in
// the CPU cache; a part is the unit of work of one goroutine on a plain file.
const (
	logDefaultBlockSize = 256 << 10
	logDefaultPartSize  = 4 << 20
)

// logPart is what one scanner found in a run of whole lines (a part of a file,
// or a whole stream). Line numbers and timestamps that depend on what came
// before are resolved when parts are merged in order.
type logPart struct {
	index   int
	lines   int64
	bytes   int64
	long    int64
	counts  []int64 // per pattern
	pending []int64 // per column (logPlan.columns): matches before the part's first timestamp
	buckets *logBuckets
	// yearless holds the counts at timestamps without a year apart (see
	// logMerger.bucketsFor): a part may hold both kinds, and one set spanning
	// year 0 to today would widen its buckets to months.
	yearless *logBuckets
	end      int64 // the timestamp in effect at the end of the part…
	endOK    bool  // …if any line of the part had one
	keys     []*logKeyTable
	unkeyed  [][2]int64 // per pair: starts and closes the key regexp did not match
	spans    []logSpanPart
	ov       *logOverviewPart
	err      error
}

// logSpot is a mark that may be unset.
type logSpot struct {
	logMark
	ok bool
}

// logSpanPart is what a part (or the parts merged so far) knows of one span:
// its first From line, its first To line, the first To line at or after that
// From line, and its last Else line. Parts merge in order: the merged From is
// the first part's that has one, and the To after it is that part's own, else
// the first To of any later part.
type logSpanPart struct {
	from, toFirst, toAfter, elseLast logSpot
}

// bucketsAt picks the part's bucket set for a time: the dated one, or the one
// of timestamps without a year.
func (p *logPart) bucketsAt(ms int64) *logBuckets {
	if ms < logYearOneMillis {
		return p.yearless
	}
	return p.buckets
}

// logHit is a matching line in a block.
type logHit struct {
	ls, le int32 // line start, index of its '\n' (or block end)
	pat    int32
}

// logScanner scans parts one after the other; each goroutine owns one.
type logScanner struct {
	plan      *logPlan
	ms        []*logMatcher
	times     bool // this input has timestamps and they are needed
	blockSize int
	maxLine   int

	buf      []byte
	states   []logMatchState // per matcher
	hits     []logHit
	pats     []int32
	keyCache []logKeyHit

	part  *logPart
	line  int64 // part-relative index of the next line
	eff   int64 // the timestamp in effect before the next line…
	effOK bool  // …if there is one yet in this part
	first bool  // the part starts a file: touch its first timestamp

	masker   logMasker     // the overview's
	fast     logFastCache  // the overview's templates of this part (template_fast.go)
	skel     logSkelCache  // the overview's skeletons of this part (template_skeleton.go)
	days     logDayMemo    // the overview's last date
	ovEff    int64         // the timestamp in effect for the overview…
	ovOK     bool          // …if there is one yet in this part
	ovBucket logBucketMemo // the overview's last bucket
	ends     []int32       // the overview's line ends in a block
}

type logKeyHit struct {
	re  any // *regexp.Regexp of the pair, used as a cache key
	key []byte
	ok  bool
}

func newLogScanner(plan *logPlan, blockSize, maxLine int) *logScanner {
	if blockSize <= 0 {
		blockSize = logDefaultBlockSize
	}
	if maxLine <= 0 {
		maxLine = MaxLineBytes
	}
	return &logScanner{plan: plan, blockSize: blockSize, maxLine: max(maxLine, blockSize), buf: make([]byte, blockSize)}
}

// newPart returns an empty part for the plan; buckets start at the width of
// proto (the merged set so far) when given.
func (pl *logPlan) newPart(index int, proto *logBuckets) *logPart {
	p := &logPart{index: index, counts: make([]int64, len(pl.patterns))}
	if pl.bucket != BucketNone {
		p.pending = make([]int64, pl.columns())
		if proto != nil {
			p.buckets = proto.empty()
		} else {
			p.buckets = newLogBuckets(pl.bucket, pl.columns())
		}
		p.yearless = newLogBuckets(pl.bucket, pl.columns())
	}
	if pl.overview {
		p.ov = &logOverviewPart{table: newLogTemplateTable()}
	}
	if pl.keyed {
		p.keys = make([]*logKeyTable, len(pl.pairs))
		for i, pr := range pl.pairs {
			if pr.key != nil {
				p.keys[i] = newLogKeyTable(pl.maxKeys)
			}
		}
		p.unkeyed = make([][2]int64, len(pl.pairs))
	}
	if len(pl.spans) > 0 {
		p.spans = make([]logSpanPart, len(pl.spans))
	}
	return p
}

// scan reads r to its end into part p. first says that r starts a file.
// progress, if set, is told of every block read.
func (s *logScanner) scan(ctx context.Context, r io.Reader, p *logPart, first bool, progress func(int64)) error {
	s.part, s.line, s.effOK, s.first, s.ovOK = p, 0, false, first, false
	s.fast.reset()
	s.skel.reset()
	n := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		m, err := io.ReadFull(r, s.buf[n:])
		p.bytes += int64(m)
		if progress != nil && m > 0 {
			progress(int64(m))
		}
		n += m
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			return err
		}
		data := s.buf[:n]
		if eof {
			if n > 0 {
				s.block(data)
			}
			s.finish()
			return nil
		}
		if last := bytes.LastIndexByte(data, '\n'); last >= 0 {
			s.block(data[:last+1])
			n = copy(s.buf, data[last+1:])
			continue
		}
		if len(s.buf) < s.maxLine {
			grown := make([]byte, min(2*len(s.buf), s.maxLine))
			copy(grown, data)
			s.buf = grown
			continue
		}
		if n, err = s.longLine(r, progress); err != nil {
			return err
		}
	}
}

// grow makes room for one match state per matcher.
func (s *logScanner) grow() {
	for len(s.states) < len(s.ms) {
		s.states = append(s.states, logMatchState{})
	}
}

// finish records the part's final timestamp state.
func (s *logScanner) finish() {
	s.part.end, s.part.endOK = s.eff, s.effOK
}

// block scans whole lines (the last may lack its '\n' only at the end of
// input).
func (s *logScanner) block(b []byte) {
	p := s.part
	ovLines := int64(-1) // the lines of b, when the overview counted them
	if p.ov != nil {
		ovLines = s.overview(b)
	}
	if !s.times && !s.plan.marked {
		s.grow()
		for i, m := range s.ms {
			c := m.count(b, &s.states[i])
			p.counts[i] += c
			if p.pending != nil { // buckets wanted, but this input has no timestamps
				p.pending[i] += c
			}
		}
		n := ovLines
		if n < 0 {
			n = logCountLines(b)
		}
		p.lines += n
		s.line += n
		return
	}
	if s.first && s.times {
		if ms, ok := logFirstTime(b); ok && p.buckets != nil {
			p.bucketsAt(ms).touch(ms)
		}
		s.first = false
	}
	hits := s.hits[:0]
	s.grow()
	for i, m := range s.ms {
		st := &s.states[i]
		st.reset(len(m.finders))
		for from := 0; ; {
			ls, le, ok := m.next(b, from, st)
			if !ok {
				break
			}
			hits = append(hits, logHit{int32(ls), int32(le), int32(i)})
			from = le + 1
		}
	}
	if len(s.ms) > 1 {
		slices.SortFunc(hits, func(x, y logHit) int {
			if x.ls != y.ls {
				return int(x.ls - y.ls)
			}
			return int(x.pat - y.pat)
		})
	}
	s.hits = hits
	line, pos, effPos := s.line, 0, 0
	for k := 0; k < len(hits); {
		ls, le := int(hits[k].ls), int(hits[k].le)
		line += int64(bytes.Count(b[pos:ls], []byte{'\n'}))
		pos = ls
		pats := s.pats[:0]
		for ; k < len(hits) && int(hits[k].ls) == ls; k++ {
			pats = append(pats, hits[k].pat)
		}
		s.pats = pats
		if s.times {
			if ms, ok := logParseTime(b[ls:le]); ok {
				s.eff, s.effOK = ms, true
			} else if ms, ok := logLastTime(b[effPos:ls]); ok {
				s.eff, s.effOK = ms, true
			}
			effPos = min(le+1, len(b))
		}
		s.record(b[ls:le], line, pats)
	}
	if pos == 0 && ovLines >= 0 {
		line += ovLines // logCountLines(b), which the overview found
	} else {
		line += logCountLines(b[pos:])
	}
	p.lines += line - s.line
	s.line = line
	if s.times {
		if ms, ok := logLastTime(b[effPos:]); ok {
			s.eff, s.effOK = ms, true
		}
		if s.effOK && p.buckets != nil {
			p.bucketsAt(s.eff).touch(s.eff)
		}
	}
}

// record counts one matching line (part-relative index line) for the patterns
// pats, in its time bucket, in the key tables of its pairs and in its spans.
func (s *logScanner) record(text []byte, line int64, pats []int32) {
	p := s.part
	for _, pt := range pats {
		p.counts[pt]++
		if p.buckets != nil {
			if s.times && s.effOK {
				p.bucketsAt(s.eff).add(s.eff, int(pt), 1)
			} else {
				p.pending[pt]++
			}
		}
	}
	if !s.plan.marked {
		return
	}
	mark := logMark{line: line, state: logTimePending}
	if s.times && s.effOK {
		mark.ms, mark.state = s.eff, logTimeKnown
	}
	if p.spans != nil {
		s.recordSpans(mark, pats)
	}
	if !s.plan.keyed {
		return
	}
	s.keyCache = s.keyCache[:0]
	for _, pt := range pats {
		for _, role := range s.plan.roles[pt] {
			pr := &s.plan.pairs[role.pair]
			if pr.key == nil {
				continue
			}
			key, ok := s.key(pr, text)
			if !ok {
				if role.start {
					p.unkeyed[role.pair][0]++
				} else {
					p.unkeyed[role.pair][1]++
				}
				continue
			}
			ks := p.keys[role.pair].get(key)
			if ks == nil {
				continue
			}
			if role.start {
				ks.start(mark)
			} else {
				ks.close()
			}
		}
	}
}

// recordSpans marks a line in the spans its patterns begin or end. A line that
// both begins and ends a span ends it: its From role is taken first.
func (s *logScanner) recordSpans(mark logMark, pats []int32) {
	p := s.part
	for _, pt := range pats {
		for _, r := range s.plan.spanRoles[pt] {
			if sp := &p.spans[r.span]; r.role == logSpanFrom && !sp.from.ok {
				sp.from = logSpot{mark, true}
			}
		}
	}
	for _, pt := range pats {
		for _, r := range s.plan.spanRoles[pt] {
			sp := &p.spans[r.span]
			switch r.role {
			case logSpanTo:
				if !sp.toFirst.ok {
					sp.toFirst = logSpot{mark, true}
				}
				if sp.from.ok && !sp.toAfter.ok {
					sp.toAfter = logSpot{mark, true}
				}
			case logSpanElse:
				sp.elseLast = logSpot{mark, true}
			}
		}
	}
}

// key applies a pair's key regexp to a line, once per regexp and line.
func (s *logScanner) key(pr *logPairPlan, text []byte) ([]byte, bool) {
	for _, c := range s.keyCache {
		if c.re == any(pr.key) {
			return c.key, c.ok
		}
	}
	var key []byte
	loc := pr.key.FindSubmatchIndex(text)
	ok := loc != nil && loc[2] >= 0
	if ok {
		key = text[loc[2]:loc[3]]
		if len(key) > maxKeyBytes {
			key = key[:maxKeyBytes]
		}
	}
	s.keyCache = append(s.keyCache, logKeyHit{re: pr.key, key: key, ok: ok})
	return key, ok
}

// logFirstTime returns the timestamp of the first line of b that has one.
func logFirstTime(b []byte) (int64, bool) {
	for from := 0; from < len(b); {
		le := logLineEnd(b, from)
		if ms, ok := logParseTime(b[from:le]); ok {
			return ms, true
		}
		from = le + 1
	}
	return 0, false
}

// logLastTime returns the timestamp of the last line of b (whole lines) that
// has one.
func logLastTime(b []byte) (int64, bool) {
	end := len(b)
	if end > 0 && b[end-1] == '\n' {
		end--
	}
	for {
		start := bytes.LastIndexByte(b[:end], '\n') + 1
		if ms, ok := logParseTime(b[start:end]); ok {
			return ms, true
		}
		if start == 0 {
			return 0, false
		}
		end = start - 1
	}
}
