package analyze

import (
	"bytes"
	"io"
	"unicode/utf8"

	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
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
// an unpaired surrogate and an odd last byte become U+FFFD.
func newUTF16Reader(r io.Reader, encoding string) io.Reader {
	order := unicode.LittleEndian
	if encoding == EncodingUTF16BE {
		order = unicode.BigEndian
	}
	return transform.NewReader(r, unicode.UTF16(order, unicode.ExpectBOM).NewDecoder())
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
