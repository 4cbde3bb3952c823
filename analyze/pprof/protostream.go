package pprof

import (
	"fmt"
	"io"

	"github.com/leakui/leakui/analyze"
)

// protoStream checks the top-level framing of a profile.proto while it is read,
// so that content that cannot be one — a compression bomb of zeros behind a valid
// first field, say — is refused at its first bad byte rather than after a
// gigabyte has been read into memory. It checks what walkMessage checks at the top
// level (field number 0, wire types, varints longer than 10 bytes) and nothing
// else, so it refuses nothing the decoder accepts; truncation is left to the
// decoder, which sees the end.
type protoStream struct {
	r io.Reader
	// off is the offset of the next byte to check.
	off   int64
	state protoState
	// varintLen counts the bytes of the varint being read; acc accumulates it.
	varintLen int
	acc       uint64
	// skip is how many payload bytes of the current field are left.
	skip uint64
	err  error
}

type protoState int

const (
	protoKey protoState = iota
	protoVarint
	protoLength
	protoSkip
)

func (p *protoStream) Read(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	n, err := p.r.Read(b)
	if cerr := p.check(b[:n]); cerr != nil {
		p.err = cerr
		return 0, cerr
	}
	return n, err
}

// check advances the framing state over b.
func (p *protoStream) check(b []byte) error {
	for len(b) > 0 {
		if p.state == protoSkip {
			if uint64(len(b)) < p.skip {
				p.skip -= uint64(len(b))
				p.off += int64(len(b))
				return nil
			}
			b = b[p.skip:]
			p.off += int64(p.skip)
			p.skip, p.state = 0, protoKey
			continue
		}
		c := b[0]
		b = b[1:]
		p.off++
		if p.varintLen == 10 {
			return p.fail("a varint longer than 10 bytes")
		}
		p.acc |= uint64(c&0x7f) << (7 * p.varintLen)
		p.varintLen++
		if c >= 0x80 {
			continue
		}
		v := p.acc
		p.acc, p.varintLen = 0, 0
		switch p.state {
		case protoKey:
			if v>>3 == 0 {
				return p.fail("field number 0")
			}
			switch v & 7 {
			case wireVarint:
				p.state = protoVarint
			case wireFixed64:
				p.state, p.skip = protoSkip, 8
			case wireBytes:
				p.state = protoLength
			case wireFixed32:
				p.state, p.skip = protoSkip, 4
			default:
				return p.fail(fmt.Sprintf("wire type %d in field %d", v&7, v>>3))
			}
		case protoVarint:
			p.state = protoKey
		case protoLength:
			p.state, p.skip = protoSkip, v
		}
	}
	return nil
}

func (p *protoStream) fail(what string) error {
	return fmt.Errorf("%w: %v: %s at byte %d", analyze.ErrMalformed, errProto, what, p.off-1)
}
