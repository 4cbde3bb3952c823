package analyze

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// encodeUTF16 returns s in UTF-16 with a byte order mark, in the order enc names.
func encodeUTF16(s string, enc string) []byte {
	var b []byte
	put := func(u uint16) {
		if enc == EncodingUTF16BE {
			b = append(b, byte(u>>8), byte(u))
		} else {
			b = append(b, byte(u), byte(u>>8))
		}
	}
	put(0xfeff)
	for _, u := range utf16.Encode([]rune(s)) {
		put(u)
	}
	return b
}

// decodeUTF16Reference is what Decompress must make of UTF-16 data b (BOM
// included): the code units decoded by unicode/utf16, which turns an unpaired
// surrogate into U+FFFD, and U+FFFD for an odd last byte.
func decodeUTF16Reference(b []byte, enc string) string {
	b = b[2:]
	units := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		if enc == EncodingUTF16BE {
			units = append(units, uint16(b[i])<<8|uint16(b[i+1]))
		} else {
			units = append(units, uint16(b[i+1])<<8|uint16(b[i]))
		}
	}
	s := string(utf16.Decode(units))
	if len(b)%2 == 1 {
		s += "\uFFFD"
	}
	return s
}

// readDecompressed returns what Decompress makes of b under limit, with the
// encoding it reports.
func readDecompressed(t *testing.T, b []byte, limit int64) (string, string, error) {
	t.Helper()
	rc, _, err := Decompress(bytes.NewReader(b), limit)
	if err != nil {
		return "", "", err
	}
	defer rc.Close()
	out, err := io.ReadAll(rc)
	return string(out), EncodingOf(rc), err
}

// TestDecompressUTF16 reads UTF-16 text in both byte orders, bare and gzipped: it
// comes out as UTF-8 without the byte order mark, and EncodingOf names the order.
func TestDecompressUTF16(t *testing.T) {
	text := "goroutine 1 [running]:\nhéllo wörld 日本 𝄞\r\n\"main\" #1 prio=5 tid=0x1\n"
	for _, enc := range []string{EncodingUTF16LE, EncodingUTF16BE} {
		raw := encodeUTF16(text, enc)
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(raw)
		zw.Close()
		for name, in := range map[string][]byte{"bare": raw, "gzip": gz.Bytes()} {
			got, gotEnc, err := readDecompressed(t, in, 0)
			if err != nil || got != text || gotEnc != enc {
				t.Errorf("%s %s: %q, %q, %v; want %q", enc, name, got, gotEnc, err, text)
			}
		}
	}
	if _, enc, err := readDecompressed(t, []byte("\xef\xbb\xbfplain"), 0); enc != "" || err != nil {
		t.Errorf("UTF-8 with a BOM: encoding %q, %v", enc, err)
	}
}

// TestDecompressUTF16Invalid turns unpaired surrogates and an odd last byte into
// U+FFFD and keeps the text around them.
func TestDecompressUTF16Invalid(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		want string
	}{
		{[]byte{0xff, 0xfe, 0x00, 0xd8, 'a', 0}, "\uFFFDa"},                   // high surrogate, then a letter
		{[]byte{0xff, 0xfe, 0x00, 0xdc, 'a', 0}, "\uFFFDa"},                   // low surrogate alone
		{[]byte{0xff, 0xfe, 'a', 0, 0x00, 0xd8}, "a\uFFFD"},                   // high surrogate at the end
		{[]byte{0xff, 0xfe, 'a', 0, 'b'}, "a\uFFFD"},                          // odd last byte
		{[]byte{0xfe, 0xff, 0xd8, 0x34, 0xdd, 0x1e, 0, 'x'}, "𝄞x"},            // a pair, big-endian
		{[]byte{0xfe, 0xff, 0xdd, 0x1e, 0xd8, 0x34, 0, 'x'}, "\uFFFD\uFFFDx"}, // reversed pair
		{[]byte{0xff, 0xfe}, ""},
	} {
		got, _, err := readDecompressed(t, tc.in, 0)
		if err != nil || got != tc.want {
			t.Errorf("% x: %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestDecompressUTF16Limit counts the UTF-8 output against the limit: 1000 CJK
// characters are 2002 bytes of UTF-16 but 3000 of UTF-8.
func TestDecompressUTF16Limit(t *testing.T) {
	in := encodeUTF16(strings.Repeat("日", 1000), EncodingUTF16LE)
	if _, _, err := readDecompressed(t, in, 3000); err != nil {
		t.Errorf("limit 3000: %v", err)
	}
	if _, _, err := readDecompressed(t, in, 2999); !errors.Is(err, ErrTooLarge) {
		t.Errorf("limit 2999: %v, want ErrTooLarge", err)
	}
}

// endlessUTF16 is an endless UTF-16LE text: a BOM, then lines of text.
type endlessUTF16 struct{ started bool }

func (e *endlessUTF16) Read(p []byte) (int, error) {
	n := 0
	if !e.started {
		e.started = true
		n = copy(p, []byte{0xff, 0xfe})
	}
	for ; n+1 < len(p); n += 2 {
		p[n], p[n+1] = "x\n"[n/2%2], 0
	}
	return n, nil
}

// TestDecompressUTF16Streams reads 64 MB of UTF-16 text through the transcoder
// without holding it: the allocations stay far below the size of the input, and
// the limit ends the stream.
func TestDecompressUTF16Streams(t *testing.T) {
	const limit = 32 << 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rc, _, err := Decompress(&endlessUTF16{}, limit)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.CopyBuffer(io.Discard, rc, make([]byte, 32<<10))
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTooLarge) || n != limit {
		t.Fatalf("%d bytes, %v; want %d and ErrTooLarge", n, err, limit)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("%d bytes allocated to transcode %d", alloc, n)
	}
}

// TestSniffUTF16 detects UTF-16 text by its content and names the encoding, and
// calls random bytes behind a byte order mark binary data, not a log.
func TestSniffUTF16(t *testing.T) {
	sniff := func(b []byte) Detection {
		rc, _, err := Decompress(bytes.NewReader(b), 0)
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		d, err := Sniff(rc)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	d := sniff(encodeUTF16("goroutine 1 [running]:\nmain.main()\n\t/x.go:1 +0x1\n", EncodingUTF16BE))
	if d.Kind != KindGoroutines || d.Encoding != EncodingUTF16BE || !strings.Contains(d.String(), "UTF-16BE") {
		t.Errorf("goroutine dump in UTF-16BE: %+v (%s)", d, d)
	}
	d = sniff(encodeUTF16("INFO 日本語のログ\nWARN もう一行\n", EncodingUTF16LE))
	if d.Kind != KindLog || d.Encoding != EncodingUTF16LE {
		t.Errorf("Japanese log in UTF-16LE: %+v", d)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 20 {
		b := make([]byte, 4096)
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		b[0], b[1] = 0xff, 0xfe
		if d := sniff(b); d.Kind != KindUnknown {
			t.Errorf("random bytes %d behind a BOM: %+v", i, d)
		}
	}
}

// FuzzUTF16 transcodes arbitrary bytes behind either byte order mark: the output is
// valid UTF-8, equal to unicode/utf16's decoding of the code units, and never more
// than the limit.
func FuzzUTF16(f *testing.F) {
	f.Add([]byte("a\x00\x00\xd8b\x00"), false)
	f.Add([]byte("\x00a\xd8\x34\xdd\x1e"), true)
	f.Add([]byte("\x00"), false)
	const limit = 16 << 10
	f.Fuzz(func(t *testing.T, data []byte, be bool) {
		enc := EncodingUTF16LE
		in := append([]byte{0xff, 0xfe}, data...)
		if be {
			enc = EncodingUTF16BE
			in[0], in[1] = 0xfe, 0xff
		}
		got, gotEnc, err := readDecompressed(t, in, limit)
		want := decodeUTF16Reference(in, enc)
		switch {
		case errors.Is(err, ErrTooLarge):
			if len(want) <= limit || len(got) != limit || got != want[:limit] {
				t.Fatalf("ErrTooLarge after %d bytes for %d bytes of UTF-8", len(got), len(want))
			}
		case err != nil:
			t.Fatal(err)
		case got != want || gotEnc != enc:
			t.Fatalf("%q (%s), want %q", got, gotEnc, want)
		case !utf8.ValidString(got):
			t.Fatalf("invalid UTF-8 %q", got)
		}
	})
}
