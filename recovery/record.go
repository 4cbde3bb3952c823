package recovery

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// maxRecordBytes bounds the length a record may claim inside a batch, so a hostile
// stream cannot make a deep iterator allocate without bound.
const maxRecordBytes = 16 << 20

// Record is one record inside a batch, as a deep iterator returns it.
type Record struct {
	// Offset is the batch's base offset plus the record's offset delta.
	Offset int64
	// Timestamp is the batch's first timestamp plus the record's delta, in ms.
	Timestamp int64
	// Key and Value are nil for a null key or value. They are valid only until
	// the next call to Next.
	Key, Value []byte
	// Headers is the number of record headers.
	Headers int
}

// byteStream is what records are parsed from: a decompressed batch.
type byteStream interface {
	io.Reader
	io.ByteReader
}

func recordError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorruptRecord, fmt.Sprintf(format, args...))
}

// readRecord reads one v2 record from r into scratch (grown as needed) and returns
// it with the scratch buffer to keep.
func readRecord(r byteStream, h BatchHeader, scratch []byte) (Record, []byte, error) {
	length, err := binary.ReadVarint(r)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return Record{}, scratch, fmt.Errorf("%w: record length: %w", ErrCorruptRecord, err)
	}
	if length < 1 || length > maxRecordBytes {
		return Record{}, scratch, recordError("record length %d out of range", length)
	}
	// Grow as the bytes arrive, so a false length on a short stream costs little.
	scratch = scratch[:0]
	for int64(len(scratch)) < length {
		want := min(length-int64(len(scratch)), 64<<10)
		if int64(cap(scratch)-len(scratch)) < want {
			grown := make([]byte, len(scratch), int64(len(scratch))+want)
			copy(grown, scratch)
			scratch = grown
		}
		n, err := io.ReadFull(r, scratch[len(scratch):len(scratch)+int(want)])
		scratch = scratch[:len(scratch)+n]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return Record{}, scratch, fmt.Errorf("%w: record body: %w", ErrCorruptRecord, err)
		}
	}
	rec, err := parseRecord(scratch, h)
	return rec, scratch, err
}

// parseRecord decodes a record body (everything after its length).
func parseRecord(b []byte, h BatchHeader) (Record, error) {
	p := recordParser{b: b}
	p.byte() // attributes, unused in v2
	tsDelta := p.varint()
	offsetDelta := p.varint()
	key := p.bytes()
	value := p.bytes()
	headers := p.varint()
	if p.err == nil && (headers < 0 || headers > int64(len(b))) {
		p.err = recordError("header count %d out of range", headers)
	}
	for i := int64(0); i < headers && p.err == nil; i++ {
		if k := p.bytes(); k == nil && p.err == nil {
			p.err = recordError("null header key")
		}
		p.bytes()
	}
	if p.err != nil {
		return Record{}, p.err
	}
	if len(p.b) != 0 {
		return Record{}, recordError("%d bytes after the last record field", len(p.b))
	}
	if offsetDelta < 0 || offsetDelta > int64(h.LastOffsetDelta) {
		return Record{}, recordError("offset delta %d outside the batch (last offset delta %d)", offsetDelta, h.LastOffsetDelta)
	}
	return Record{
		Offset:    h.BaseOffset + offsetDelta,
		Timestamp: h.FirstTimestamp + tsDelta,
		Key:       key,
		Value:     value,
		Headers:   int(headers),
	}, nil
}

// recordParser reads the fields of a record body; the first error sticks.
type recordParser struct {
	b   []byte
	err error
}

func (p *recordParser) byte() byte {
	if p.err != nil {
		return 0
	}
	if len(p.b) == 0 {
		p.err = recordError("record ends inside its attributes")
		return 0
	}
	c := p.b[0]
	p.b = p.b[1:]
	return c
}

func (p *recordParser) varint() int64 {
	if p.err != nil {
		return 0
	}
	v, n := binary.Varint(p.b)
	if n <= 0 {
		p.err = recordError("bad varint in record")
		return 0
	}
	p.b = p.b[n:]
	return v
}

// bytes reads a length-prefixed field; length -1 is null.
func (p *recordParser) bytes() []byte {
	n := p.varint()
	if p.err != nil {
		return nil
	}
	if n < -1 || n > int64(len(p.b)) {
		p.err = recordError("field length %d with %d bytes left in the record", n, len(p.b))
		return nil
	}
	if n == -1 {
		return nil
	}
	v := p.b[:n:n]
	p.b = p.b[n:]
	return v
}
