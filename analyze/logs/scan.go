package logs

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"

	"github.com/leakui/leakui/analyze/logline"
)

// Default sizes of the scan: a block is read and searched while it sits in
// the CPU cache; a part is the unit of work of one goroutine on a plain file.
const (
	defaultBlockSize = 256 << 10
	defaultPartSize  = 4 << 20
)

// partResult is what one scanner found in a run of whole lines (a part of a file,
// or a whole stream). Line numbers and timestamps that depend on what came
// before are resolved when parts are merged in order.
type partResult struct {
	index   int
	lines   int64
	bytes   int64
	long    int64
	counts  []int64 // per pattern
	pending []int64 // per column (countPlan.columns): matches before the part's first timestamp
	buckets *timeBuckets
	// yearless holds the counts at timestamps without a year apart (see
	// merger.bucketsFor): a part may hold both kinds, and one set spanning
	// year 0 to today would widen its buckets to months.
	yearless *timeBuckets
	end      int64 // the timestamp in effect at the end of the part…
	endOK    bool  // …if any line of the part had one
	keys     []*keyTable
	unkeyed  [][2]int64 // per pair: starts and closes the key regexp did not match
	spans    []spanPart
	ov       *overviewPart
	err      error
}

// spot is a mark that may be unset.
type spot struct {
	keyMark
	ok bool
}

// spanPart is what a part (or the parts merged so far) knows of one span:
// its first From line, its first To line, the first To line at or after that
// From line, and its last Else line. Parts merge in order: the merged From is
// the first part's that has one, and the To after it is that part's own, else
// the first To of any later part.
type spanPart struct {
	from, toFirst, toAfter, elseLast spot
}

// bucketsAt picks the part's bucket set for a time: the dated one, or the one
// of timestamps without a year.
func (p *partResult) bucketsAt(ms int64) *timeBuckets {
	if ms < yearOneMillis {
		return p.yearless
	}
	return p.buckets
}

// lineHit is a matching line in a block.
type lineHit struct {
	ls, le int32 // line start, index of its '\n' (or block end)
	pat    int32
}

// scanner scans parts one after the other; each goroutine owns one.
type scanner struct {
	plan      *countPlan
	ms        []*matcher
	times     bool // this input has timestamps and they are needed
	blockSize int
	maxLine   int

	buf      []byte
	states   []matchState // per matcher
	hits     []lineHit
	pats     []int32
	keyCache []keyHit

	part  *partResult
	line  int64 // part-relative index of the next line
	eff   int64 // the timestamp in effect before the next line…
	effOK bool  // …if there is one yet in this part
	first bool  // the part starts a file: touch its first timestamp

	masker   lineMasker      // the overview's
	fast     fastCache       // the overview's templates of this part (template_fast.go)
	skel     skelCache       // the overview's skeletons of this part (template_skeleton.go)
	days     logline.DayMemo // the overview's last date
	ovEff    int64           // the timestamp in effect for the overview…
	ovOK     bool            // …if there is one yet in this part
	ovBucket bucketMemo      // the overview's last bucket
	ends     []int32         // the overview's line ends in a block
}

type keyHit struct {
	re  any // *regexp.Regexp of the pair, used as a cache key
	key []byte
	ok  bool
}

func newLogScanner(plan *countPlan, blockSize, maxLine int) *scanner {
	if blockSize <= 0 {
		blockSize = defaultBlockSize
	}
	if maxLine <= 0 {
		maxLine = MaxLineBytes
	}
	return &scanner{plan: plan, blockSize: blockSize, maxLine: max(maxLine, blockSize), buf: make([]byte, blockSize)}
}

// newPart returns an empty part for the plan; buckets start at the width of
// proto (the merged set so far) when given.
func (pl *countPlan) newPart(index int, proto *timeBuckets) *partResult {
	p := &partResult{index: index, counts: make([]int64, len(pl.patterns))}
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
		p.ov = &overviewPart{table: newLogTemplateTable()}
	}
	if pl.keyed {
		p.keys = make([]*keyTable, len(pl.pairs))
		for i, pr := range pl.pairs {
			if pr.key != nil {
				p.keys[i] = newLogKeyTable(pl.maxKeys)
			}
		}
		p.unkeyed = make([][2]int64, len(pl.pairs))
	}
	if len(pl.spans) > 0 {
		p.spans = make([]spanPart, len(pl.spans))
	}
	return p
}

// scan reads r to its end into part p. first says that r starts a file.
// progress, if set, is told of every block read.
func (s *scanner) scan(ctx context.Context, r io.Reader, p *partResult, first bool, progress func(int64)) error {
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
func (s *scanner) grow() {
	for len(s.states) < len(s.ms) {
		s.states = append(s.states, matchState{})
	}
}

// finish records the part's final timestamp state.
func (s *scanner) finish() {
	s.part.end, s.part.endOK = s.eff, s.effOK
}

// block scans whole lines (the last may lack its '\n' only at the end of
// input).
func (s *scanner) block(b []byte) {
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
			n = countLines(b)
		}
		p.lines += n
		s.line += n
		return
	}
	if s.first && s.times {
		if ms, ok := firstTime(b); ok && p.buckets != nil {
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
			hits = append(hits, lineHit{int32(ls), int32(le), int32(i)})
			from = le + 1
		}
	}
	if len(s.ms) > 1 {
		slices.SortFunc(hits, func(x, y lineHit) int {
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
			if ms, ok := logline.Time(b[ls:le]); ok {
				s.eff, s.effOK = ms, true
			} else if ms, ok := lastTime(b[effPos:ls]); ok {
				s.eff, s.effOK = ms, true
			}
			effPos = min(le+1, len(b))
		}
		s.record(b[ls:le], line, pats)
	}
	if pos == 0 && ovLines >= 0 {
		line += ovLines // countLines(b), which the overview found
	} else {
		line += countLines(b[pos:])
	}
	p.lines += line - s.line
	s.line = line
	if s.times {
		if ms, ok := lastTime(b[effPos:]); ok {
			s.eff, s.effOK = ms, true
		}
		if s.effOK && p.buckets != nil {
			p.bucketsAt(s.eff).touch(s.eff)
		}
	}
}

// record counts one matching line (part-relative index line) for the patterns
// pats, in its time bucket, in the key tables of its pairs and in its spans.
func (s *scanner) record(text []byte, line int64, pats []int32) {
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
	mark := keyMark{line: line, state: timePending}
	if s.times && s.effOK {
		mark.ms, mark.state = s.eff, timeKnown
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
func (s *scanner) recordSpans(mark keyMark, pats []int32) {
	p := s.part
	for _, pt := range pats {
		for _, r := range s.plan.spanRoles[pt] {
			if sp := &p.spans[r.span]; r.role == spanRoleFrom && !sp.from.ok {
				sp.from = spot{mark, true}
			}
		}
	}
	for _, pt := range pats {
		for _, r := range s.plan.spanRoles[pt] {
			sp := &p.spans[r.span]
			switch r.role {
			case spanRoleTo:
				if !sp.toFirst.ok {
					sp.toFirst = spot{mark, true}
				}
				if sp.from.ok && !sp.toAfter.ok {
					sp.toAfter = spot{mark, true}
				}
			case spanRoleElse:
				sp.elseLast = spot{mark, true}
			}
		}
	}
}

// key applies a pair's key regexp to a line, once per regexp and line.
func (s *scanner) key(pr *pairPlan, text []byte) ([]byte, bool) {
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
	s.keyCache = append(s.keyCache, keyHit{re: pr.key, key: key, ok: ok})
	return key, ok
}

// firstTime returns the timestamp of the first line of b that has one.
func firstTime(b []byte) (int64, bool) {
	for from := 0; from < len(b); {
		le := lineEnd(b, from)
		if ms, ok := logline.Time(b[from:le]); ok {
			return ms, true
		}
		from = le + 1
	}
	return 0, false
}

// lastTime returns the timestamp of the last line of b (whole lines) that
// has one.
func lastTime(b []byte) (int64, bool) {
	end := len(b)
	if end > 0 && b[end-1] == '\n' {
		end--
	}
	for {
		start := bytes.LastIndexByte(b[:end], '\n') + 1
		if ms, ok := logline.Time(b[start:end]); ok {
			return ms, true
		}
		if start == 0 {
			return 0, false
		}
		end = start - 1
	}
}
