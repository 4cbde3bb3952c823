package pprof

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/varint"
)

// protoStream reads the top-level fields of a profile.proto one at a time from
// its decompressed stream, holding no more than the field being read: a field
// that fits the reader's buffer is read in place, a longer one into a buffer of
// its own charged to the budget before it grows. A field whose length could
// decode to more than the budget has left is refused at its first bytes, as
// protoReader refuses it.
type protoStream struct {
	r      *bufio.Reader
	budget *analyze.Budget
	buf    []byte
	// pos is the bytes consumed so far; skip what the last field left in r.
	pos, skip int64
}

// streamBufferSize is the stream's read buffer: most fields of a profile (a
// Sample, a Location) fit in it and are read without a copy.
const streamBufferSize = 64 << 10

// streamOverhead is what an open stream holds besides its buffer: the
// decompressor's window and buffers (analyze.Decompress) and the prefetcher's
// chunks.
const streamOverhead = 192<<10 + prefetchChunks*prefetchChunkSize

// errStreamEnd is what next returns after the last field.
var errStreamEnd = io.EOF

// next returns the next field: its number, wire type, value (varint and fixed
// fields) and bytes (length-delimited fields; valid until the next call).
func (s *protoStream) next() (field, wire int, v uint64, msg []byte, err error) {
	if s.skip > 0 {
		if _, err := s.r.Discard(int(s.skip)); err != nil {
			return 0, 0, 0, nil, err
		}
		s.pos += s.skip
		s.skip = 0
	}
	at := s.pos
	key, err := s.uvarint()
	if err != nil {
		if errors.Is(err, io.EOF) && s.pos == at {
			return 0, 0, 0, nil, errStreamEnd
		}
		return 0, 0, 0, nil, s.failed(err, "a field key", at)
	}
	field, wire = int(key>>3), int(key&7)
	if field == 0 {
		return 0, 0, 0, nil, s.fail("field number 0", at)
	}
	switch wire {
	case wireVarint:
		if v, err = s.uvarint(); err != nil {
			return 0, 0, 0, nil, s.failed(err, fmt.Sprintf("the varint of field %d", field), at)
		}
	case wireFixed64, wireFixed32:
		n := 8
		if wire == wireFixed32 {
			n = 4
		}
		b, err := s.r.Peek(n)
		if err != nil {
			return 0, 0, 0, nil, s.failed(err, fmt.Sprintf("field %d", field), at)
		}
		for i := n - 1; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
		s.skip = int64(n)
	case wireBytes:
		l, err := s.uvarint()
		if err != nil {
			return 0, 0, 0, nil, s.failed(err, fmt.Sprintf("the length of field %d", field), at)
		}
		if l >= 1<<62 || s.budget != nil && worstCase(field, int64(l)) > s.budget.Remaining() {
			return 0, 0, 0, nil, fmt.Errorf("%w: field %d of the profile is %s long, which may decode to more than the %s left of the analysis's memory budget of %s (-memory-budget)",
				analyze.ErrTooLarge, field, analyze.FormatBytes(int64(l)), analyze.FormatBytes(s.budget.Remaining()), analyze.FormatBytes(s.budget.Limit()))
		}
		if msg, err = s.bytes(int(l)); err != nil {
			return 0, 0, 0, nil, s.failed(err, fmt.Sprintf("field %d", field), at)
		}
	default:
		return 0, 0, 0, nil, s.fail(fmt.Sprintf("wire type %d in field %d", wire, field), at)
	}
	return field, wire, v, msg, nil
}

// bytes reads the next n bytes: in place when they fit the reader's buffer.
func (s *protoStream) bytes(n int) ([]byte, error) {
	if n <= s.r.Size() {
		b, err := s.r.Peek(n)
		if err != nil {
			return nil, err
		}
		s.skip = int64(n)
		return b, nil
	}
	// Longer: into a buffer grown as the bytes arrive, so that a length
	// the file does not hold allocates no more than the file holds.
	b := s.buf[:0]
	for len(b) < n {
		if len(b) == cap(b) {
			c := min(n, max(2*cap(b), 2*s.r.Size()))
			if err := s.budget.Charge(int64(c)); err != nil {
				return nil, err
			}
			s.budget.Uncharge(int64(cap(s.buf)))
			grown := make([]byte, len(b), c)
			copy(grown, b)
			b, s.buf = grown, grown[:0]
		}
		m, err := s.r.Read(b[len(b):min(n, cap(b))])
		b = b[:len(b)+m]
		s.pos += int64(m)
		if err != nil && len(b) < n {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	return b, nil
}

// uvarint reads a varint.
func (s *protoStream) uvarint() (uint64, error) {
	if b, _ := s.r.Peek(10); len(b) > 0 {
		v, n := varint.Uvarint(b)
		if n > 0 {
			s.r.Discard(n)
			s.pos += int64(n)
			return v, nil
		}
		if n < 0 || len(b) >= 10 {
			return 0, errLongVarint
		}
	}
	// Fewer than 10 bytes left, and no whole varint in them.
	if _, err := s.r.Peek(1); err != nil {
		return 0, err
	}
	return 0, io.ErrUnexpectedEOF
}

var errLongVarint = errors.New("a varint longer than 10 bytes")

// failed describes err, met while reading what at byte at.
func (s *protoStream) failed(err error, what string, at int64) error {
	switch {
	case errors.Is(err, errLongVarint):
		return s.fail(err.Error(), at)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return s.fail("the file ends inside "+what, at)
	}
	return err // the decompressor's, the budget's, the file's
}

func (s *protoStream) fail(what string, at int64) error {
	return fmt.Errorf("%w: %v: %s at byte %d", analyze.ErrMalformed, errProto, what, at)
}
