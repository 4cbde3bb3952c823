package analyze

import (
	"encoding/binary"
	"io"
)

// SizeHint guesses the decompressed size of r's content without reading it,
// when r can be read at an offset (a file, a bytes.Reader): the size left for
// uncompressed content, the gzip trailer's ISIZE (the size of the last member
// modulo 4 GiB) for gzip. It returns 0 when it cannot tell (zstd, a stream).
// It is a hint for a first allocation, never trusted as a bound: a forged
// trailer can say anything.
func SizeHint(r io.Reader) int64 {
	rs, ok := r.(interface {
		io.ReaderAt
		io.Seeker
	})
	if !ok {
		return 0
	}
	cur, err := rs.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0
	}
	end, err := rs.Seek(0, io.SeekEnd)
	if _, serr := rs.Seek(cur, io.SeekStart); err != nil || serr != nil {
		return 0
	}
	var head [4]byte
	if n, _ := rs.ReadAt(head[:], cur); n < 4 {
		return max(end-cur, 0)
	}
	switch DetectCompression(head[:]) {
	case CompressionNone:
		return end - cur
	case CompressionGzip:
		var tail [4]byte
		if end-cur < 18 {
			return 0
		}
		if n, _ := rs.ReadAt(tail[:], end-4); n < 4 {
			return 0
		}
		return int64(binary.LittleEndian.Uint32(tail[:]))
	}
	return 0
}
