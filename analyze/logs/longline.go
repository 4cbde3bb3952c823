package logs

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"regexp"

	"github.com/leakui/leakui/analyze/logline"
)

// lineBatch is the most bytes handed to the regexps of a long line at once.
const lineBatch = 64 << 10

// errLogLineDone tells a regexp's feeder that the regexp has decided.
var errLogLineDone = errors.New("analyze: regexp decided")

// longLine handles a line longer than the largest buffer, whose first
// len(s.buf) bytes are in s.buf, in bounded memory and still exactly:
// literals are searched in windows that overlap by the literal's length less
// one byte, and each regexp reads the whole line as a stream (its own
// goroutine, fed through a pipe, as regexp.MatchReader allows). The key and
// the timestamp come from the line's first len(s.buf) bytes. It returns how
// many bytes after the line are left at the start of s.buf.
func (s *scanner) longLine(r io.Reader, progress func(int64)) (int, error) {
	p := s.part
	head := s.buf
	matched := make([]bool, len(s.ms))
	keep := 0
	var streams []*lineStream
	for i, m := range s.ms {
		switch {
		case m.re != nil:
			streams = append(streams, startLogLineStream(i, m.re))
		case m.matchLine(head):
			matched[i] = true
		default:
			keep = max(keep, len(m.finders[0].pat)-1)
		}
	}
	// Bytes for the regexps are batched, so that tiny windows do not mean
	// tiny pipe writes.
	var batch []byte
	flush := func() {
		for _, st := range streams {
			st.feed(batch)
		}
		batch = batch[:0]
	}
	feed := func(b []byte) {
		if len(streams) == 0 {
			return
		}
		if len(batch)+len(b) > lineBatch {
			flush()
		}
		if len(b) >= lineBatch {
			batch = b
			flush()
			batch = nil
			return
		}
		batch = append(batch, b...)
	}
	finish := func(err error) {
		if err == nil {
			flush()
		}
		for _, st := range streams {
			if ok := st.finish(err); ok {
				matched[st.pattern] = true
			}
		}
	}
	feed(head)
	if ms, ok := logline.Time(head); ok && s.times {
		s.eff, s.effOK = ms, true
	}
	window := make([]byte, keep+s.blockSize)
	ov := copy(window, head[len(head)-min(keep, len(head)):])
	var rest []byte
	for {
		m, err := io.ReadFull(r, window[ov:ov+s.blockSize])
		p.bytes += int64(m)
		if progress != nil && m > 0 {
			progress(int64(m))
		}
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			finish(err)
			return 0, err
		}
		data := window[:ov+m]
		seg := data
		nl := bytes.IndexByte(data[ov:], '\n')
		if nl >= 0 {
			seg = data[:ov+nl]
		}
		feed(seg[ov:])
		for i, mt := range s.ms {
			if !matched[i] && mt.re == nil && !mt.every && mt.finders[0].index(seg) >= 0 {
				matched[i] = true
			}
		}
		if nl >= 0 {
			rest = data[ov+nl+1:]
			break
		}
		if eof {
			break
		}
		ov = copy(window, data[len(data)-min(keep, len(data)):])
	}
	finish(nil)
	pats := s.pats[:0]
	for i, ok := range matched {
		if ok {
			pats = append(pats, int32(i))
		}
	}
	s.pats = pats
	s.record(head, s.line, pats) // before s.buf, which holds head, is reused
	if p.ov != nil {
		s.overviewLine(head, s.line, true)
	}
	s.line++
	p.lines++
	p.long++
	if s.effOK && p.buckets != nil {
		p.bucketsAt(s.eff).touch(s.eff)
	}
	return copy(s.buf, rest), nil
}

// lineStream runs one regexp over a line fed to it piece by piece.
type lineStream struct {
	pattern int
	w       *io.PipeWriter
	result  chan bool
}

func startLogLineStream(pattern int, re *regexp.Regexp) *lineStream {
	pr, pw := io.Pipe()
	st := &lineStream{pattern: pattern, w: pw, result: make(chan bool, 1)}
	go func() {
		ok := re.MatchReader(bufio.NewReaderSize(pr, 64<<10))
		pr.CloseWithError(errLogLineDone) // later writes fail at once
		st.result <- ok
	}()
	return st
}

// feed passes the next bytes of the line; once the regexp has decided, the
// write fails and is ignored.
func (st *lineStream) feed(b []byte) {
	if len(b) > 0 {
		st.w.Write(b)
	}
}

// finish ends the line (or aborts it with err) and waits for the verdict.
func (st *lineStream) finish(err error) bool {
	st.w.CloseWithError(err) // nil: the regexp sees the end of the line
	return <-st.result
}
