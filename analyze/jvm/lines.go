package jvm

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/leakui/leakui/analyze"
)

// maxLine is the longest line the JVM parsers keep; the rest of a longer line is
// dropped (and counted), so one hostile line cannot make a parser hold the whole input.
const maxLine = 64 << 10

// lineReader reads text line by line for the JVM parsers: without the line ending
// (LF or CRLF), with over-long lines cut at maxLine, and with one line of
// push-back so that a section parser can hand back the line that ended its section.
type lineReader struct {
	br      *bufio.Reader
	buf     []byte
	num     int // number of the current line, from 1
	pending bool
	err     error
	// Cut counts the lines longer than maxLine.
	Cut int
	// meter is charged by the parsers for what they keep (see charge).
	meter analyze.Meter
}

func newLineReader(r io.Reader, budget *analyze.Budget) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), meter: *analyze.NewMeter(budget)}
}

// charge counts n bytes a parser is about to keep. When the budget refuses them
// it reports false and reading stops: next returns false and readErr the
// budget's error (ErrTooLarge or ErrBusy, naming the limit).
func (l *lineReader) charge(n int64) bool {
	if l.err != nil && !errors.Is(l.err, io.EOF) {
		return false
	}
	if err := l.meter.Charge(n); err != nil {
		l.err, l.pending = err, false
		return false
	}
	return true
}

// next advances to the next line and reports whether there is one. After it returns
// false, err tells a read failure from the end of the input.
func (l *lineReader) next() bool {
	if l.pending && (l.err == nil || errors.Is(l.err, io.EOF)) {
		l.pending = false
		return true
	}
	if l.err != nil {
		return false
	}
	l.buf = l.buf[:0]
	cut := false
	for {
		chunk, err := l.br.ReadSlice('\n')
		if room := maxLine - len(l.buf); room > 0 {
			l.buf = append(l.buf, chunk[:min(len(chunk), room)]...)
			cut = cut || len(chunk) > room
		} else if len(chunk) > 0 {
			cut = true
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			l.err = err
			if len(l.buf) == 0 && !cut {
				return false
			}
		}
		break
	}
	if cut {
		l.Cut++
	}
	l.buf = bytes.TrimSuffix(l.buf, []byte{'\n'})
	l.buf = bytes.TrimSuffix(l.buf, []byte{'\r'})
	l.num++
	return true
}

// line returns the current line. The slice is valid until the next call to next.
func (l *lineReader) line() []byte { return l.buf }

// unread makes the next call to next return the current line again.
func (l *lineReader) unread() { l.pending = true }

// readErr returns the error that stopped reading, or nil at the end of the input.
func (l *lineReader) readErr() error {
	if l.err == nil || errors.Is(l.err, io.EOF) {
		return nil
	}
	return l.err
}

// cutWarning describes the cut lines for a parser's warnings, or returns "".
func (l *lineReader) cutWarning() string {
	if l.Cut == 0 {
		return ""
	}
	return fmt.Sprintf("%d lines longer than %d KiB were cut", l.Cut, maxLine>>10)
}

// jvmText turns bytes from a dump into a valid UTF-8 string: dumps are not always
// UTF-8 (an HP-UX JVM writes its date in the platform's Korean encoding), and every
// invalid byte becomes U+FFFD instead of failing the parse or reaching a page.
func jvmText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// timestampLayouts are the forms of a line that holds only a time stamp, as jstack
// and jcmd Thread.print print before a dump ("2016-07-12 14:02:38") and as `date`
// prints when a script writes one before a snapshot.
var timestampLayouts = []string{
	"2006-01-02 15:04:05",
	time.RFC3339,
	time.RFC3339Nano,
	time.UnixDate,
	"Mon Jan _2 15:04:05 2006",
	"Mon _2 Jan 2006 15:04:05 MST",
}

// parseTimestamp returns the time of a line that holds only a time stamp. A time
// without a zone is taken as UTC: dumps do not say which zone they were taken in.
func parseTimestamp(b []byte) (time.Time, bool) {
	s := strings.TrimSpace(string(b))
	if len(s) < 10 || len(s) > 40 {
		return time.Time{}, false
	}
	for _, layout := range timestampLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// addInt64 adds two counts and reports an overflow instead of wrapping.
func addInt64(a, b int64) (int64, bool) {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		return 0, false
	}
	return s, true
}

// parseCount parses a decimal count of at most 18 digits (so that sums of a
// few thousand of them cannot overflow in practice; addInt64 checks anyway).
func parseCount(b []byte) (int64, error) {
	if len(b) == 0 || len(b) > 18 {
		return 0, fmt.Errorf("count %q out of range", errSnippet(b))
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("count %q is not a number", errSnippet(b))
	}
	return n, nil
}

func errSnippet(b []byte) string {
	if len(b) > 40 {
		b = b[:40]
	}
	return jvmText(b)
}

// isSpace reports whether c is an ASCII space or tab.
func isSpace(c byte) bool { return c == ' ' || c == '\t' }

// isDigit reports whether c is an ASCII digit.
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
