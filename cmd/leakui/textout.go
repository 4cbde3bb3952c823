package main

import (
	"io"
	"strconv"
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
// writes what is held.
type visibleWriter struct {
	w       io.Writer
	pending []byte
	buf     []byte
}

// newVisibleWriter wraps w.
func newVisibleWriter(w io.Writer) *visibleWriter { return &visibleWriter{w: w} }

// Write escapes p and writes it; it reports len(p) when the underlying writer
// took everything.
func (v *visibleWriter) Write(p []byte) (int, error) {
	if len(v.pending) == 0 && plain(p) {
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
	out := v.buf[:0]
	for i := 0; i < len(in); {
		c := in[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			out = append(out, c)
			i++
			continue
		}
		if c >= utf8.RuneSelf && !utf8.FullRune(in[i:]) {
			v.pending = append(v.pending[:0], in[i:]...)
			break
		}
		r, size := utf8.DecodeRune(in[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(out, `\x`...)
			out = append(out, hexDigits[c>>4], hexDigits[c&0xf])
		case strconv.IsPrint(r):
			out = append(out, in[i:i+size]...)
		default:
			q := strconv.QuoteRune(r) // 'x' with x escaped
			out = append(out, q[1:len(q)-1]...)
		}
		i += size
	}
	v.buf = out
	if _, err := v.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a character left incomplete at the end of the output, escaped
// byte by byte.
func (v *visibleWriter) Flush() error {
	if len(v.pending) == 0 {
		return nil
	}
	out := v.buf[:0]
	for _, c := range v.pending {
		out = append(out, `\x`...)
		out = append(out, hexDigits[c>>4], hexDigits[c&0xf])
	}
	v.pending = nil
	_, err := v.w.Write(out)
	return err
}

const hexDigits = "0123456789abcdef"

// plain reports whether p is printable ASCII, tabs and line feeds only, which
// pass as they are (the common case: pprof's tables).
func plain(p []byte) bool {
	for _, c := range p {
		if (c < 0x20 || c >= 0x7f) && c != '\n' && c != '\t' {
			return false
		}
	}
	return true
}
