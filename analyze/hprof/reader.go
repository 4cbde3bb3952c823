package hprof

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/leakui/leakui/analyze"
)

// bufSize is the read buffer of a pass; an instance's field data (at most a few
// hundred kB in any JVM) must fit in it.
const bufSize = 1 << 20

// aheadStep is how far ahead of a pass the kernel is asked to read the dump.
const aheadStep = 16 << 20

// scanner reads a dump front to back through a buffer over an io.ReaderAt, with every
// read checked against the end of the file: a record that claims more bytes than are
// left is ErrMalformed, never an allocation.
type scanner struct {
	r      io.ReaderAt
	size   int64 // bytes in the file
	buf    []byte
	bufPos int64 // file offset of buf[0]
	lo, hi int   // unread bytes are buf[lo:hi]
	idSize int
	// subAt and segEnd are the offset of the heap dump sub-record being read
	// and the end of its segment, set by walkHeap.
	subAt, segEnd int64
}

func newScanner(r io.ReaderAt, size int64) *scanner {
	return &scanner{r: r, size: size, buf: make([]byte, bufSize)}
}

// pos is the file offset of the next unread byte.
func (s *scanner) pos() int64 { return s.bufPos + int64(s.lo) }

// seek moves to file offset off, dropping the buffer when off is outside it.
func (s *scanner) seek(off int64) {
	if off >= s.bufPos && off <= s.bufPos+int64(s.hi) {
		s.lo = int(off - s.bufPos)
		return
	}
	s.bufPos, s.lo, s.hi = off, 0, 0
}

// need makes n bytes available in buf[lo:lo+n], or fails with ErrMalformed when the
// file ends first. n must be at most bufSize.
func (s *scanner) need(n int) ([]byte, error) {
	if s.hi-s.lo >= n {
		b := s.buf[s.lo : s.lo+n]
		s.lo += n
		return b, nil
	}
	if n > len(s.buf) {
		return nil, fmt.Errorf("%w: a value of %d bytes at offset %d", analyze.ErrMalformed, n, s.pos())
	}
	if s.pos()+int64(n) > s.size {
		return nil, fmt.Errorf("%w: truncated at offset %d (%d bytes needed, file ends at %d)", analyze.ErrMalformed, s.pos(), n, s.size)
	}
	copy(s.buf, s.buf[s.lo:s.hi])
	if s.bufPos/aheadStep != (s.bufPos+int64(s.lo))/aheadStep {
		readAhead(s.r, s.bufPos+int64(s.lo)+aheadStep, aheadStep)
	}
	s.bufPos += int64(s.lo)
	s.hi -= s.lo
	s.lo = 0
	want := len(s.buf)
	if left := s.size - s.bufPos; left < int64(want) {
		want = int(left)
	}
	for s.hi < want {
		m, err := s.r.ReadAt(s.buf[s.hi:want], s.bufPos+int64(s.hi))
		s.hi += m
		if err != nil && !(errors.Is(err, io.EOF) && s.hi >= n) {
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("%w: truncated at offset %d", analyze.ErrMalformed, s.pos())
			}
			return nil, err
		}
		if m == 0 && err == nil {
			return nil, io.ErrNoProgress
		}
	}
	b := s.buf[s.lo : s.lo+n]
	s.lo += n
	return b, nil
}

func (s *scanner) u1() (byte, error) {
	b, err := s.need(1)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

func (s *scanner) u2() (uint16, error) {
	b, err := s.need(2)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint16(b), nil
}

func (s *scanner) u4() (uint32, error) {
	b, err := s.need(4)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint32(b), nil
}

func (s *scanner) id() (uint64, error) {
	b, err := s.need(s.idSize)
	if err != nil {
		return 0, err
	}
	return readID(b, s.idSize), nil
}

// readID decodes an identifier of idSize (4 or 8) bytes.
func readID(b []byte, idSize int) uint64 {
	if idSize == 4 {
		return uint64(binary.BigEndian.Uint32(b))
	}
	return binary.BigEndian.Uint64(b)
}

// header is the start of an HPROF file.
type header struct {
	version string // "JAVA PROFILE 1.0.2"
	idSize  int
	millis  int64 // time stamp, milliseconds since the epoch
	end     int64 // offset of the first record
}

// readHeader reads the null-terminated version string, the identifier size and the
// time stamp.
func readHeader(s *scanner) (header, error) {
	var h header
	var name []byte
	for {
		if len(name) > 32 {
			return h, fmt.Errorf("%w: not an HPROF heap dump (no JAVA PROFILE header)", analyze.ErrUnsupportedKind)
		}
		c, err := s.u1()
		if err != nil {
			return h, fmt.Errorf("%w: not an HPROF heap dump (no JAVA PROFILE header)", analyze.ErrUnsupportedKind)
		}
		if c == 0 {
			break
		}
		name = append(name, c)
	}
	h.version = string(name)
	switch h.version {
	case "JAVA PROFILE 1.0.1", "JAVA PROFILE 1.0.2":
	default:
		if len(name) >= 12 && string(name[:12]) == "JAVA PROFILE" {
			return h, fmt.Errorf("%w: HPROF version %q (leakui reads 1.0.1 and 1.0.2)", analyze.ErrUnsupportedKind, h.version)
		}
		return h, fmt.Errorf("%w: not an HPROF heap dump (no JAVA PROFILE header)", analyze.ErrUnsupportedKind)
	}
	ids, err := s.u4()
	if err != nil {
		return h, err
	}
	if ids != 4 && ids != 8 {
		return h, fmt.Errorf("%w: identifier size %d (HPROF identifiers are 4 or 8 bytes)", analyze.ErrMalformed, ids)
	}
	h.idSize = int(ids)
	s.idSize = h.idSize
	hi, err := s.u4()
	if err != nil {
		return h, err
	}
	lo, err := s.u4()
	if err != nil {
		return h, err
	}
	h.millis = int64(hi)<<32 | int64(lo)
	h.end = s.pos()
	return h, nil
}
