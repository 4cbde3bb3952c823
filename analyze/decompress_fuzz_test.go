package analyze

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/leakui/leakui/internal/hostile"
)

// FuzzDecompress unwraps arbitrary bytes under a small cap: nothing panics, no
// more than the cap comes out, and every failure wraps one of the package's
// sentinels (so the web maps it to a 4xx), never a bare decoder error.
func FuzzDecompress(f *testing.F) {
	small := hostile.SmallProfile()
	f.Add(hostile.Gzip(small))
	f.Add(hostile.Gzip(hostile.Gzip(small)))
	f.Add(hostile.Gzip(small)[:20])
	f.Add(append(hostile.Gzip(small), hostile.Gzip(small)...))
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58, 0x31, 0x00, 0x00})
	f.Add(small)
	f.Add([]byte{})
	const limit = 64 << 10
	f.Fuzz(func(t *testing.T, data []byte) {
		rc, _, err := Decompress(bytes.NewReader(data), limit)
		if err == nil {
			var n int64
			n, err = io.Copy(io.Discard, rc)
			rc.Close()
			if n > limit {
				t.Fatalf("%d bytes out of a %d cap", n, limit)
			}
			// Uncompressed input comes out as it is, but for UTF-16, which is
			// transcoded (see FuzzUTF16).
			if err == nil && len(data) > 0 && DetectCompression(data) == CompressionNone && DetectEncoding(data) == "" && n != int64(len(data)) {
				t.Fatalf("uncompressed input of %d bytes read as %d", len(data), n)
			}
		}
		if err != nil && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrEmpty) && !errors.Is(err, ErrUnsupportedKind) {
			t.Fatalf("an error that wraps no sentinel: %v", err)
		}
	})
}
