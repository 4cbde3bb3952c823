package logs

import (
	"bytes"
	"context"
	"fmt"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/logline"

	"regexp"
	"runtime"
	"testing"
	"time"
)

// reference counts like the issue describes, line by line and in the
// simplest way: split at '\n', test each line, take each line's timestamp or
// the one above, key each pair line. It is the oracle of FuzzCountLogs. Keys
// and timestamps of lines longer than maxLine come from their first maxLine
// bytes, as documented.
type reference struct {
	lines   int64
	counts  []int64
	buckets map[int64][]int64 // bucket start (ms) → counts, at a given width
	untimed []int64
	open    map[string]int64 // key → starts − closes
	peak    map[string]int64 // key → the most open at once
	firstAt map[string]int64 // key → first start line
	// The span's lines (1-based, 0 for none): the first From line, the first
	// To line at or after it, the last Else line.
	spanFrom, spanTo, spanElse int64
}

func referenceCount(data []byte, ms []*matcher, key *regexp.Regexp, start, close int, span spanPlan, width int64, maxLine int, times bool) *reference {
	r := &reference{counts: make([]int64, len(ms)), untimed: make([]int64, len(ms)),
		buckets: map[int64][]int64{}, open: map[string]int64{}, peak: map[string]int64{}, firstAt: map[string]int64{}}
	if len(data) == 0 {
		return r
	}
	lines := bytes.Split(data, []byte("\n"))
	if data[len(data)-1] == '\n' {
		lines = lines[:len(lines)-1]
	}
	var eff int64
	effOK := false
	// Lines counted at a time without a year stay off a time axis that dated
	// lines are on: they count as untimed (see merger.bucketReport).
	type timedHit struct {
		ms int64
		p  int
	}
	var dated, yearless []timedHit
	defer func() {
		if len(dated) > 0 && len(yearless) > 0 {
			for _, h := range yearless {
				r.untimed[h.p]++
			}
			yearless = nil
		}
		for _, h := range append(dated, yearless...) {
			b := floorDiv(h.ms, width) * width
			if r.buckets[b] == nil {
				r.buckets[b] = make([]int64, len(ms))
			}
			r.buckets[b][h.p]++
		}
	}()
	for i, line := range lines {
		r.lines++
		head := line[:min(len(line), maxLine)]
		if t, ok := logline.Time(head); ok && times {
			eff, effOK = t, true
		}
		n := int64(i + 1)
		if ms[span.from].matchLine(line) && r.spanFrom == 0 {
			r.spanFrom = n
		}
		if ms[span.to].matchLine(line) && r.spanFrom > 0 && r.spanTo == 0 {
			r.spanTo = n
		}
		if ms[span.els].matchLine(line) {
			r.spanElse = n
		}
		for p, m := range ms {
			if !m.matchLine(line) {
				continue
			}
			r.counts[p]++
			if !effOK {
				r.untimed[p]++
			} else if width > 0 && eff < yearOneMillis {
				yearless = append(yearless, timedHit{eff, p})
			} else if width > 0 {
				dated = append(dated, timedHit{eff, p})
			}
			if key != nil && (p == start || p == close) {
				loc := key.FindSubmatchIndex(head)
				if loc == nil || loc[2] < 0 {
					continue
				}
				k := string(head[loc[2]:min(loc[3], loc[2]+maxKeyBytes)])
				if p == start {
					r.open[k]++
					r.peak[k] = max(r.peak[k], r.open[k])
					if _, ok := r.firstAt[k]; !ok {
						r.firstAt[k] = int64(i + 1)
					}
				} else {
					r.open[k]--
				}
			}
		}
	}
	return r
}

// FuzzCountLogs compares the real counter — split into tiny parts scanned by
// three goroutines, tiny blocks, tiny line buffers, and the streaming path —
// with the line-by-line reference on any input and any pattern.
func FuzzCountLogs(f *testing.F) {
	f.Add([]byte("2024-01-01 00:00:00.000 start k=a\nstart k=b\r\n\n2024-01-01 00:00:01.500 close k=a\nstartstart"), "start", false, uint16(7), uint16(13))
	f.Add([]byte("a\x00b\nabab\xff\n\n[2020-02-14 01:34:02,114] ab k=x\nJun 21 12:00:01 ab"), "ab", false, uint16(3), uint16(1))
	f.Add([]byte("x=1\nx=22\nx=333 close\n17/06/09 20:10:40 x=4 k=z\n"), `x=\d{2,}`, true, uint16(64), uint16(100))
	f.Add([]byte("\n\n\n"), "", false, uint16(1), uint16(1))
	f.Add([]byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\nab\n"), "aaaab", false, uint16(5), uint16(9))
	f.Add(bytes.Repeat([]byte("1687305601 start k=q close\n"), 20), `^1\d+ st`, true, uint16(40), uint16(90))
	// A span begun in one part and ended in a later one; a key started again
	// while open in another part.
	f.Add([]byte("close k=a\nstart k=a\nxx\nstart k=a\nyy\nclose k=a\na\n"), "start", false, uint16(4), uint16(1))
	f.Add([]byte("start k=a\nxx\nstart k=a\nyy\nclose k=a\n"), "start", false, uint16(4), uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, pattern string, isRegexp bool, block, part uint16) {
		done := make(chan struct{})
		go func() {
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				buf := make([]byte, 1<<20)
				n := runtime.Stack(buf, true)
				panic(fmt.Sprintf("hang on %q %q %v %d %d\n%s", data, pattern, isRegexp, block, part, buf[:n]))
			}
		}()
		defer close(done)
		checkAgainstReference(t, data, pattern, isRegexp, block, part)
	})
}

// checkAgainstReference is the body of FuzzCountLogs.
func checkAgainstReference(t *testing.T, data []byte, pattern string, isRegexp bool, block, part uint16) {
	{
		if len(data) > 1<<16 {
			return
		}
		pats := []Pattern{{Text: pattern, Regexp: isRegexp}, Literal("close"), Literal("a"), Regexp(`[0-9]$`)}
		opts := CountOptions{
			Patterns: pats[:1],
			Pairs:    []Pair{{Name: "p", Start: pats[0], Close: pats[1]}},
			Spans:    []Span{{Name: "s", From: pats[0], To: pats[1], Else: pats[2]}},
			Key:      `k=(\w+)`,
			Bucket:   time.Second,
		}
		opts.Patterns = append(opts.Patterns, pats[2:]...)
		plan, err := newLogPlan(opts)
		if err != nil {
			return // an invalid regexp or pattern: refused, which is fine
		}
		head := data[:min(len(data), sampleSize)]
		ms := plan.matchers(head)
		maxLine := int(block%200) + 8
		for _, v := range []countVariant{
			{name: "parallel", block: int(block%200) + 1, part: int(part%500) + 1, maxLine: maxLine, worker: 3},
			{name: "stream", block: int(block%200) + 1, maxLine: maxLine, stream: true},
		} {
			o := opts
			o.blockSize, o.partSize, o.maxLine, o.Workers = v.block, v.part, v.maxLine, v.worker
			var in = bytes.NewReader(data)
			var r = any(in).(interface{ Read([]byte) (int, error) })
			if v.stream {
				r = streamOnly{in}
			}
			rep, err := Count(context.Background(), o, Input{Name: "f", Reader: r})
			if err != nil {
				if analyze.DetectCompression(data) != analyze.CompressionNone {
					return // compressed garbage: an error is the right answer
				}
				t.Fatalf("%s: %v", v.name, err)
			}
			if analyze.DetectCompression(data) != analyze.CompressionNone {
				return
			}
			width := rep.BucketMillis
			if width == 0 {
				width = 1000
			}
			ref := referenceCount(data, ms, plan.pairs[0].key, plan.pairs[0].start, plan.pairs[0].close, plan.spans[0], width, max(v.maxLine, v.block), hasTimes(head))
			if rep.Lines != ref.lines {
				t.Fatalf("%s: %d lines, reference %d", v.name, rep.Lines, ref.lines)
			}
			for i, pc := range rep.Patterns {
				if pc.Count != ref.counts[i] {
					t.Fatalf("%s: %v counted %d, reference %d", v.name, plan.patterns[i], pc.Count, ref.counts[i])
				}
			}
			if fmt.Sprint(rep.Untimed) != fmt.Sprint(ref.untimed) {
				t.Fatalf("%s: untimed %v, reference %v", v.name, rep.Untimed, ref.untimed)
			}
			got := map[int64][]int64{}
			for _, b := range rep.Buckets {
				for _, c := range b.Counts {
					if c != 0 {
						got[b.Start.UnixMilli()] = b.Counts
						break
					}
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(ref.buckets) {
				t.Fatalf("%s: buckets of %dms\n got %v\nwant %v", v.name, width, got, ref.buckets)
			}
			unclosed := map[string]int64{}
			for _, k := range rep.Pairs[0].UnclosedKeys {
				unclosed[k.Key] = k.Open
				if k.First.Line != ref.firstAt[k.Key] {
					t.Fatalf("%s: key %q first at line %d, reference %d", v.name, k.Key, k.First.Line, ref.firstAt[k.Key])
				}
			}
			for k, n := range ref.open {
				if n <= 0 {
					delete(ref.open, k)
				}
			}
			if fmt.Sprint(unclosed) != fmt.Sprint(ref.open) {
				t.Fatalf("%s: unclosed keys %v, reference %v", v.name, unclosed, ref.open)
			}
			pr, shared := rep.Pairs[0], int64(0)
			for _, n := range ref.peak {
				if n > 1 {
					shared++
				}
			}
			if pr.KeysShared != shared || pr.Measurable != (pr.Starts+pr.Closes > 0) || (shared > 0) != (pr.Basis == BasisCounts) && pr.Measurable {
				t.Fatalf("%s: %d keys shared (basis %s, measurable %v), reference peaks %v", v.name, pr.KeysShared, pr.Basis, pr.Measurable, ref.peak)
			}
			checkSpan(t, v.name, rep.Spans[0], ref)
		}
	}
}

// checkSpan compares a span's lines with the reference's.
func checkSpan(t *testing.T, variant string, sp SpanReport, ref *reference) {
	t.Helper()
	line := func(p *Place) int64 {
		if p == nil {
			return 0
		}
		return p.Line
	}
	wantEnd := ref.spanTo
	if wantEnd == 0 && ref.spanFrom > 0 && ref.spanElse >= ref.spanFrom {
		wantEnd = ref.spanElse
	}
	if line(sp.Start) != ref.spanFrom || line(sp.End) != wantEnd {
		t.Fatalf("%s: span from line %d to %d, reference %d to %d (first To after From %d, last Else %d)",
			variant, line(sp.Start), line(sp.End), ref.spanFrom, wantEnd, ref.spanTo, ref.spanElse)
	}
}

// FuzzLogIndexPair compares the vector pair scan with the portable one,
// exact and ignoring ASCII case.
func FuzzLogIndexPair(f *testing.F) {
	f.Add([]byte("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxab"), byte('a'), byte('b'), uint8(1), false)
	f.Add(bytes.Repeat([]byte("abcABCabc"), 20), byte('c'), byte('a'), uint8(1), true)
	f.Fuzz(func(t *testing.T, s []byte, c1, c2 byte, d uint8, fold bool) {
		dist := int(d%64) + 1
		var m byte
		if fold {
			m = 0x20
			c1, c2 = c1|m, c2|m
		}
		if got, want := indexPair(s, c1, c2, m, m, dist), indexPairGeneric(s, c1, c2, m, m, dist); got != want {
			t.Fatalf("indexPair(%q, %q, %q, %#x, %d) = %d, portable scan %d", s, c1, c2, m, dist, got, want)
		}
		// The portable scan against the definition.
		want := -1
		for j := 0; j+dist < len(s); j++ {
			if s[j]|m == c1 && s[j+dist]|m == c2 {
				want = j
				break
			}
		}
		if got := indexPairGeneric(s, c1, c2, m, m, dist); got != want {
			t.Fatalf("portable scan %d, definition %d", got, want)
		}
	})
}

// FuzzLogRequiredLiteral checks the regexp prefilter: a line the regexp
// matches always contains one of the required literals (ignoring ASCII case
// for the folded ones), and the finders find it.
func FuzzLogRequiredLiteral(f *testing.F) {
	f.Add(`consumer (\d+) started`, []byte("consumer 12 started"))
	f.Add(`a\x{fffd}b`, []byte("a\xffb"))
	f.Add(`(?i)Abc|xyz+q`, []byte("xyzzzq"))
	f.Add(`^(foo){2,}bar$`, []byte("foofoobar"))
	f.Add(`(?i)stopping samza`, []byte("\u017ftopping SAMZA"))
	f.Add(`(WARN|ERROR) (?i:kafka)`, []byte("ERROR KAFKA"))
	f.Fuzz(func(t *testing.T, expr string, line []byte) {
		re, err := regexp.Compile(expr)
		if err != nil || !re.Match(line) {
			return
		}
		for _, set := range requiredSets(expr) {
			if !reqMatches(set, line) {
				t.Fatalf("%q matches %q but none of the required literals %+v is in it", expr, line, set)
			}
		}
		m, err := compileLogPattern(Regexp(expr), newLogByteRanks(nil), nil)
		if err != nil {
			return // a line break in the pattern: refused
		}
		var st matchState
		st.reset(len(m.finders))
		if _, _, ok := m.next(line, 0, &st); !ok && len(line) > 0 && !bytes.Contains(line, []byte("\n")) {
			t.Fatalf("%q matches %q, but the matcher does not find the line", expr, line)
		}
	})
}
