package pprof

import (
	"errors"
	"fmt"
	"io"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/varint"
)

// protoReader reads a profile.proto into memory and checks it field by field
// while it streams in, charging a budget as it goes:
//
//   - the buffer itself, by its capacity, before it grows;
//   - every complete top-level field, by what the decoder will hold for it
//     (protoCensus: a Line its 56 bytes, a string its header and bytes);
//   - a field still being read, by the most it could cost (worstCase), so that
//     a 400 MB Location of empty Lines is refused at its first bytes, not after
//     it has been inflated.
//
// It also refuses content that cannot be a profile.proto — a compression bomb of
// zeros behind a valid first field, say — at its first bad byte (field number 0,
// a wire type protobuf does not have, a varint longer than 10 bytes): what
// walkMessage refuses at the top level, and nothing else. Truncation is left to
// the decoder, which sees the end.
type protoReader struct {
	budget *analyze.Budget
	buf    []byte
	// off is the start of the first top-level field not yet counted.
	off    int
	census protoCensus
	// charged is what the census has charged so far.
	charged int64
}

// readProto reads r (decompressed content, at most limit bytes: the buffer
// never grows past limit+1) within budget. sizeHint, when positive, is the
// expected size (a gzip trailer's), used for the first allocation.
func readProto(r io.Reader, limit, sizeHint int64, budget *analyze.Budget) ([]byte, *protoCensus, error) {
	p := &protoReader{budget: budget}
	first := int64(64 << 10)
	if sizeHint > 0 && sizeHint+1 <= limit+1 && budget.Charge(sizeHint+1) == nil {
		budget.Uncharge(sizeHint + 1)
		first = sizeHint + 1 // +1: the read that sees EOF needs room
	}
	if err := p.grow(first); err != nil {
		return nil, nil, err
	}
	for {
		if len(p.buf) == cap(p.buf) {
			if err := p.grow(min(2*int64(cap(p.buf)), max(limit+1, int64(cap(p.buf))+1))); err != nil {
				return nil, nil, err
			}
		}
		n, err := r.Read(p.buf[len(p.buf):cap(p.buf)])
		p.buf = p.buf[:len(p.buf)+n]
		if cerr := p.check(); cerr != nil {
			return nil, nil, cerr
		}
		if errors.Is(err, io.EOF) {
			if err := p.chargeCensus(); err != nil {
				return nil, nil, err
			}
			return p.buf, &p.census, nil
		}
		if err != nil {
			return nil, nil, err
		}
	}
}

// grow moves the buffer to one of capacity c, charging it first.
func (p *protoReader) grow(c int64) error {
	if err := p.budget.Charge(c); err != nil {
		return err
	}
	nb := make([]byte, len(p.buf), c)
	copy(nb, p.buf)
	p.budget.Uncharge(int64(cap(p.buf)))
	p.buf = nb
	return nil
}

// check counts every top-level field that the buffer now holds whole.
func (p *protoReader) check() error {
	for p.off < len(p.buf) {
		b := p.buf[p.off:]
		key, n := p.varint(b)
		if n < 0 {
			return p.fail("a varint longer than 10 bytes", p.off+10)
		}
		if n == 0 {
			return nil // the key is not all here yet
		}
		field, wire := int(key>>3), int(key&7)
		if field == 0 {
			return p.fail("field number 0", p.off)
		}
		var size int
		switch wire {
		case wireVarint:
			_, m := p.varint(b[n:])
			if m < 0 {
				return p.fail("a varint longer than 10 bytes", p.off+n+10)
			}
			if m == 0 {
				return nil
			}
			size = n + m
		case wireFixed64:
			size = n + 8
		case wireFixed32:
			size = n + 4
		case wireBytes:
			l, m := p.varint(b[n:])
			if m < 0 {
				return p.fail("a varint longer than 10 bytes", p.off+n+10)
			}
			if m == 0 {
				return nil
			}
			if l > uint64(len(b)-n-m) {
				// Not all here yet: refuse it now if even its most frugal reading
				// could not fit (a truncated file ends up in the decoder instead).
				if l < 1<<62 && p.budget != nil && worstCase(field, int64(l)) > p.budget.Remaining() {
					return p.tooLarge(field, l)
				}
				return nil
			}
			size = n + m + int(l)
			if err := p.census.add(field, wire, b[n+m:size]); err != nil {
				return fmt.Errorf("%w: %v", analyze.ErrMalformed, err)
			}
			if p.census.cost()-p.charged >= censusChargeStep {
				if err := p.chargeCensus(); err != nil {
					return err
				}
			}
		default:
			return p.fail(fmt.Sprintf("wire type %d in field %d", wire, field), p.off+n-1)
		}
		if size > len(b) {
			return nil
		}
		p.off += size
	}
	return nil
}

// censusChargeStep is how much the census's cost grows between two charges:
// a charge per field would make 50 million empty strings 50 million atomic
// additions.
const censusChargeStep = 64 << 10

// chargeCensus charges what the census has counted since the last call.
func (p *protoReader) chargeCensus() error {
	c := p.census.cost()
	if err := p.budget.Charge(c - p.charged); err != nil {
		return err
	}
	p.charged = c
	return nil
}

// varint decodes a varint at the start of b: n > 0 bytes, 0 when b ends inside
// it, -1 when it is longer than 10 bytes.
func (p *protoReader) varint(b []byte) (uint64, int) { return varint.Uvarint(b) }

func (p *protoReader) fail(what string, at int) error {
	return fmt.Errorf("%w: %v: %s at byte %d", analyze.ErrMalformed, errProto, what, at)
}

func (p *protoReader) tooLarge(field int, l uint64) error {
	return fmt.Errorf("%w: field %d of the profile is %s long, which may decode to more than the %s left of the analysis's memory budget of %s (-memory-budget)",
		analyze.ErrTooLarge, field, analyze.FormatBytes(int64(l)), analyze.FormatBytes(p.budget.Remaining()), analyze.FormatBytes(p.budget.Limit()))
}
