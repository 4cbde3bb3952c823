package analyze

import (
	"bytes"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// The text encodings leakui transcodes to UTF-8 before it looks at an input.
const (
	// EncodingUTF16LE is UTF-16 in little-endian order with a byte order mark (FF FE),
	// as Windows tools write text.
	EncodingUTF16LE = "UTF-16LE"
	// EncodingUTF16BE is UTF-16 in big-endian order with a byte order mark (FE FF).
	EncodingUTF16BE = "UTF-16BE"
)

// DetectEncoding names the encoding whose byte order mark b starts with: one of the
// Encoding constants, or "" for anything else (UTF-8 with or without its BOM,
// binary data).
func DetectEncoding(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte{0xff, 0xfe}):
		return EncodingUTF16LE
	case bytes.HasPrefix(b, []byte{0xfe, 0xff}):
		return EncodingUTF16BE
	}
	return ""
}

// newUTF16Reader returns a reader of r's UTF-16 text (starting with its byte order
// mark, which is dropped) as UTF-8. It streams through fixed buffers of a few KB;
// every unpaired surrogate and an odd last byte become U+FFFD, as unicode/utf16
// decodes them.
func newUTF16Reader(r io.Reader, encoding string) io.Reader {
	return &utf16Reader{r: r, be: encoding == EncodingUTF16BE}
}

// utf16ReadSize is how many bytes of UTF-16 a utf16Reader decodes at a time.
const utf16ReadSize = 8 << 10

// utf16Reader is the transcoder newUTF16Reader returns.
type utf16Reader struct {
	r          io.Reader
	be         bool
	in         [utf16ReadSize]byte
	start, end int    // the undecoded bytes are in[start:end]
	high       rune   // a high surrogate waiting for its pair, 0 when none
	bom        bool   // the byte order mark was dropped
	buf        []byte // decoded bytes, reused
	out        []byte // decoded bytes not yet read
	err        error
}

// Read implements io.Reader.
func (u *utf16Reader) Read(p []byte) (int, error) {
	for len(u.out) == 0 {
		if u.err != nil {
			return 0, u.err
		}
		u.fill()
	}
	n := copy(p, u.out)
	u.out = u.out[n:]
	return n, nil
}

// fill reads the next bytes from r and decodes every complete code unit; an odd
// byte waits for the next read, a high surrogate for the next unit.
func (u *utf16Reader) fill() {
	u.end = copy(u.in[:], u.in[u.start:u.end])
	u.start = 0
	n, err := u.r.Read(u.in[u.end:])
	u.end += n
	if !u.bom && u.end >= 2 {
		u.start, u.bom = 2, true
	}
	out := u.buf[:0]
	for ; u.end-u.start >= 2; u.start += 2 {
		a, b := rune(u.in[u.start]), rune(u.in[u.start+1])
		unit := b<<8 | a
		if u.be {
			unit = a<<8 | b
		}
		if u.high != 0 {
			if unit >= 0xdc00 && unit < 0xe000 {
				out = utf8.AppendRune(out, utf16.DecodeRune(u.high, unit))
				u.high = 0
				continue
			}
			out = utf8.AppendRune(out, utf8.RuneError)
			u.high = 0
		}
		switch {
		case unit >= 0xd800 && unit < 0xdc00:
			u.high = unit
		case unit >= 0xdc00 && unit < 0xe000:
			out = utf8.AppendRune(out, utf8.RuneError)
		default:
			out = utf8.AppendRune(out, unit)
		}
	}
	if err != nil {
		if u.high != 0 {
			out = utf8.AppendRune(out, utf8.RuneError)
			u.high = 0
		}
		if u.end-u.start == 1 && u.bom {
			out = utf8.AppendRune(out, utf8.RuneError)
			u.start++
		}
		u.err = err
	}
	u.buf, u.out = out, out
}

// EncodingOf returns the encoding the text of r was transcoded from, when r is a
// reader returned by Decompress; "" for UTF-8 input and for any other reader.
func EncodingOf(r io.Reader) string {
	if e, ok := r.(interface{ Encoding() string }); ok {
		return e.Encoding()
	}
	return ""
}

// looksLikeDecodedBinary reports whether text transcoded from UTF-16 came from data
// that is not text: random bytes behind a byte order mark decode to runes of which
// many are replacement characters (unpaired surrogates), private-use or control
// characters, which real text has few of.
func looksLikeDecodedBinary(head []byte) bool {
	odd, n := 0, 0
	for len(head) > 0 {
		r, size := utf8.DecodeRune(head)
		head = head[size:]
		n++
		switch {
		case r == utf8.RuneError,
			r >= 0xe000 && r <= 0xf8ff,
			r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' && r != '\v' && r != 0x1b,
			r >= 0x7f && r < 0xa0:
			odd++
		}
	}
	return odd*20 > n
}
