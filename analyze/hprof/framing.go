package hprof

import (
	"fmt"
	"io"

	"github.com/leakui/leakui/analyze"
)

// framingBuf is the read buffer of CheckFraming: record headers are read
// through it, the bodies skipped.
const framingBuf = 64 << 10

// CheckFraming checks, without reading the records' bodies, that the r of size
// bytes is framed as a whole heap dump: the header ("JAVA PROFILE 1.0.1" or
// "1.0.2", identifiers of 4 or 8 bytes), then top-level records whose 9-byte
// headers (tag, time, length) chain exactly to the end of the file, with at
// least one heap dump record and, after HEAP DUMP SEGMENT records, the HEAP DUMP
// END record HotSpot writes last (heapDumper.cpp's HPROF_HEAP_DUMP_END), so that
// a dump cut anywhere, even between two records, fails. It reads about one
// buffer per record beyond the buffer, so it is fast beside Parse; a dump it
// passes may still be malformed inside its records, which Parse finds. Failures
// wrap analyze.ErrMalformed (analyze.ErrUnsupportedKind for a file that is not
// HPROF, analyze.ErrEmpty for an empty one).
func CheckFraming(r io.ReaderAt, size int64) error {
	if size == 0 {
		return analyze.ErrEmpty
	}
	s := &scanner{r: r, size: size, buf: make([]byte, framingBuf)}
	hd, err := readHeader(s)
	if err != nil {
		return err
	}
	heap, segments, ended := false, false, false
	for pos := hd.end; pos < size; {
		s.seek(pos)
		hdr, err := s.need(9)
		if err != nil {
			return fmt.Errorf("%w: the record header at offset %d is cut by the end of the file (%d bytes): the dump is truncated", analyze.ErrMalformed, pos, size)
		}
		tag := hdr[0]
		length := int64(be32(hdr[5:]))
		end := pos + 9 + length
		if end > size {
			return fmt.Errorf("%w: record 0x%02x at offset %d claims %d bytes, past the end of the file (%d bytes): the dump is truncated", analyze.ErrMalformed, tag, pos, length, size)
		}
		switch tag {
		case tagHeapDump:
			heap = true
		case tagHeapDumpSegment:
			heap, segments, ended = true, true, false
		case tagHeapDumpEnd:
			ended = true
		}
		pos = end
	}
	switch {
	case !heap:
		return fmt.Errorf("%w: the dump holds no heap dump record (truncated before its heap?)", analyze.ErrMalformed)
	case segments && !ended:
		return fmt.Errorf("%w: the dump ends without the HEAP DUMP END record after its segments: it is truncated", analyze.ErrMalformed)
	}
	return nil
}
