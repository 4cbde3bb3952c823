package main

import (
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// visibleWriter writes text output with its control characters made visible:
// a character strconv.IsPrint refuses (NUL, ESC, a carriage return, a bidi
// override, …) and every byte that is not UTF-8 are written as %q writes them
// (\x00, \x1b, \r, \u202e, \xff), so a function name, thread name or log key
// from a file can neither move the terminal's cursor, recolour it nor hide
// text. Line feeds and tabs, which lay out the output, pass as they are.
//
// A character split across two writes is held until the next write; Flush
// writes what is held. It is safe for concurrent use (a server's log lines
// come from many goroutines).
//
// A strict writer (the log and event streams of serve, work and migrate)
// escapes tabs too: only the line feed that ends a record passes.
type visibleWriter struct {
	mu      sync.Mutex
	w       io.Writer
	strict  bool
	pending []byte
	buf     []byte
}

// newVisibleWriter wraps w.
func newVisibleWriter(w io.Writer) *visibleWriter { return &visibleWriter{w: w} }

// newStrictVisibleWriter wraps w, escaping tabs too.
func newStrictVisibleWriter(w io.Writer) *visibleWriter { return &visibleWriter{w: w, strict: true} }

// rawWriter is the writer under w when w is a visibleWriter (after writing
// what it holds): for output of leakui's own that draws with control
// characters, such as migrate's progress bar.
func rawWriter(w io.Writer) io.Writer {
	if v, ok := w.(*visibleWriter); ok {
		v.Flush()
		return v.w
	}
	return w
}

// visible is s with its control characters escaped as a strict visibleWriter
// escapes them, and its line feeds too: for a value (a path, a name, an error)
// written into a line, which a line feed of its own would split into two.
func visible(s string) string {
	var out []byte
	for line := range strings.SplitAfterSeq(s, "\n") {
		body, nl := strings.CutSuffix(line, "\n")
		var rest []byte
		out, rest = appendVisible(out, []byte(body), true)
		out = appendHexBytes(out, rest)
		if nl {
			out = append(out, `\n`...)
		}
	}
	return string(out)
}

// Write escapes p and writes it; it reports len(p) when the underlying writer
// took everything.
func (v *visibleWriter) Write(p []byte) (int, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.pending) == 0 && plain(p, v.strict) {
		if _, err := v.w.Write(p); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	in := p
	if len(v.pending) > 0 {
		in = append(v.pending, p...)
		v.pending = nil
	}
	out, rest := appendVisible(v.buf[:0], in, v.strict)
	v.pending = append(v.pending[:0], rest...)
	v.buf = out
	if _, err := v.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// appendVisible appends in to out with its control characters escaped; rest
// is an incomplete character at its end, left for the next write.
func appendVisible(out, in []byte, strict bool) (_, rest []byte) {
	for i := 0; i < len(in); {
		c := in[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' && !strict {
			out = append(out, c)
			i++
			continue
		}
		if c >= utf8.RuneSelf && !utf8.FullRune(in[i:]) {
			return out, in[i:]
		}
		r, size := utf8.DecodeRune(in[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = appendHexBytes(out, in[i:i+1])
		case strconv.IsPrint(r):
			out = append(out, in[i:i+size]...)
		default:
			q := strconv.QuoteRune(r) // 'x' with x escaped
			out = append(out, q[1:len(q)-1]...)
		}
		i += size
	}
	return out, nil
}

// appendHexBytes appends every byte of b as \xNN.
func appendHexBytes(out, b []byte) []byte {
	for _, c := range b {
		out = append(out, `\x`...)
		out = append(out, hexDigits[c>>4], hexDigits[c&0xf])
	}
	return out
}

// Flush writes a character left incomplete at the end of the output, escaped
// byte by byte.
func (v *visibleWriter) Flush() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.pending) == 0 {
		return nil
	}
	out := appendHexBytes(v.buf[:0], v.pending)
	v.pending = nil
	_, err := v.w.Write(out)
	return err
}

const hexDigits = "0123456789abcdef"

// plain reports whether p is printable ASCII, tabs (unless strict) and line
// feeds only, which pass as they are (the common case: pprof's tables).
func plain(p []byte, strict bool) bool {
	for _, c := range p {
		if (c < 0x20 || c >= 0x7f) && c != '\n' && (c != '\t' || strict) {
			return false
		}
	}
	return true
}
