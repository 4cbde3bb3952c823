package recovery

import (
	"encoding/binary"
	"fmt"
	"io"
)

// DefaultMaxBatchBytes bounds the size a batch header may claim before the batch is
// called corrupt without reading it (Kafka's maxMessageSize check in recover). It
// is larger than Kafka's max.message.bytes default so that the lab's large-batch
// runs fit; a claim beyond the end of the file is caught first anyway.
const DefaultMaxBatchBytes = 64 << 20

// Batch is one complete, checked entry of a segment: a record batch v2, or a
// message of format v0 or v1 (a compressed one being the wrapper of an inner
// message set), as modern Kafka's FileLogInputStream reads either.
type Batch struct {
	// Magic is the entry's format: 0, 1 or 2.
	Magic int8
	// Header is the decoded v2 header (magic 2 only).
	Header BatchHeader
	// Message is the decoded v0 or v1 message (magic 0 and 1 only).
	Message MessageHeader
	// Position is the byte offset of the batch in the segment file.
	Position int64
	// Bytes is the whole batch, header included. It is valid only until the
	// next call to BatchReader.Next.
	Bytes []byte
}

// Legacy reports whether the entry is a v0 or v1 message.
func (b Batch) Legacy() bool { return b.Magic < batchMagic }

// Records is the records section of a v2 batch (compressed as a whole when the
// codec is not none), or the value of a v0 or v1 message (the compressed inner
// message set of a wrapper).
func (b Batch) Records() []byte {
	if b.Legacy() {
		return b.Message.Value
	}
	return b.Bytes[BatchHeaderSize:]
}

// Codec is the entry's compression codec.
func (b Batch) Codec() Codec {
	if b.Legacy() {
		return b.Message.Codec()
	}
	return b.Header.Codec()
}

// Size is the whole entry in bytes.
func (b Batch) Size() int64 { return int64(len(b.Bytes)) }

// LastOffset is the offset of the entry's last record, from its header alone:
// baseOffset + lastOffsetDelta in v2, the entry's offset in v0 and v1 (a
// wrapper carries the offset of its last inner message).
func (b Batch) LastOffset() int64 {
	if b.Legacy() {
		return b.Message.Offset
	}
	return b.Header.LastOffset()
}

// BatchReader reads the entries of one segment in order, checking each the way
// LogSegment.recover does: record batches v2 and messages v0 and v1 alike, told
// apart by the magic byte at position 16, as FileLogInputStream.nextBatch does. It reads with ReadAt, so it never moves a file offset,
// and reuses one buffer for every batch.
type BatchReader struct {
	src      io.ReaderAt
	size     int64
	maxBatch int64
	pos      int64
	buf      []byte
	err      error
}

// NewBatchReader reads the batches in the first size bytes of src. maxBatch bounds
// the size a header may claim (0 means DefaultMaxBatchBytes).
func NewBatchReader(src io.ReaderAt, size int64, maxBatch int) *BatchReader {
	if maxBatch <= 0 {
		maxBatch = DefaultMaxBatchBytes
	}
	return &BatchReader{src: src, size: size, maxBatch: int64(maxBatch)}
}

// Position is the byte offset just after the last valid batch returned: the
// number of valid bytes so far.
func (r *BatchReader) Position() int64 { return r.pos }

// Next returns the next valid batch. At the clean end of the segment it returns
// io.EOF; at an invalid or incomplete batch a *CorruptBatchError (and the same
// error on every later call); an I/O error otherwise.
func (r *BatchReader) Next() (Batch, error) {
	if r.err != nil {
		return Batch{}, r.err
	}
	b, err := r.next()
	if err != nil {
		r.err = err
	}
	return b, err
}

func (r *BatchReader) next() (Batch, error) {
	remaining := r.size - r.pos
	if remaining <= 0 {
		return Batch{}, io.EOF
	}
	if remaining <= offsetMagic {
		return Batch{}, &CorruptBatchError{Position: r.pos, Incomplete: true,
			Reason: fmt.Sprintf("incomplete batch: %d bytes left in the file, %d needed to see its magic", remaining, offsetMagic+1)}
	}
	if cap(r.buf) < BatchHeaderSize {
		r.buf = make([]byte, BatchHeaderSize, 64<<10)
	}
	head := r.buf[:min(BatchHeaderSize, remaining)]
	if err := r.readAt(head, r.pos); err != nil {
		return Batch{}, err
	}
	if magic := int8(head[offsetMagic]); magic == 0 || magic == 1 {
		return r.nextMessage(head, remaining)
	}
	if remaining < BatchHeaderSize {
		return Batch{}, &CorruptBatchError{Position: r.pos, Incomplete: true,
			Reason: fmt.Sprintf("incomplete batch: %d bytes left in the file, a batch header needs %d", remaining, BatchHeaderSize)}
	}
	length := int64(int32(binary.BigEndian.Uint32(head[offsetBatchLength:])))
	size := length + logOverhead
	switch {
	case size < BatchHeaderSize:
		return Batch{}, &CorruptBatchError{Position: r.pos,
			Reason: fmt.Sprintf("Found record size %d smaller than minimum record overhead (%d)", size, BatchHeaderSize)}
	case size > r.maxBatch:
		return Batch{}, &CorruptBatchError{Position: r.pos,
			Reason: fmt.Sprintf("Found record size %d larger than the maximum allowable record size (%d)", size, r.maxBatch)}
	case head[offsetMagic] != batchMagic:
		return Batch{}, &CorruptBatchError{Position: r.pos,
			Reason: fmt.Sprintf("Invalid magic found in record: %d", int8(head[offsetMagic]))}
	case size > remaining:
		return Batch{}, &CorruptBatchError{Position: r.pos, Incomplete: true,
			Reason: fmt.Sprintf("incomplete batch: header claims %d bytes, %d left in the file", size, remaining)}
	}
	whole, err := r.readWhole(head, size)
	if err != nil {
		return Batch{}, err
	}
	h, err := CheckBatch(whole, r.pos)
	if err != nil {
		return Batch{}, err
	}
	b := Batch{Magic: batchMagic, Header: h, Position: r.pos, Bytes: whole}
	r.pos += size
	return b, nil
}

// nextMessage reads a v0 or v1 entry with the checks of Kafka 0.10.0.0's
// FileMessageSet.iterator and Message.ensureValid: a size within bounds, the
// whole message in the file, then its CRC-32.
func (r *BatchReader) nextMessage(head []byte, remaining int64) (Batch, error) {
	size := int64(int32(binary.BigEndian.Uint32(head[offsetBatchLength:]))) + logOverhead
	switch {
	case size < MinLegacyEntrySize:
		return Batch{}, &CorruptBatchError{Position: r.pos,
			Reason: fmt.Sprintf("Found record size %d smaller than minimum record overhead (%d)", size, MinLegacyEntrySize)}
	case size > r.maxBatch:
		return Batch{}, &CorruptBatchError{Position: r.pos,
			Reason: fmt.Sprintf("Message size exceeds the largest allowable message size (%d)", r.maxBatch)}
	case size > remaining:
		return Batch{}, &CorruptBatchError{Position: r.pos, Incomplete: true,
			Reason: fmt.Sprintf("incomplete message: its size says %d bytes, %d left in the file", size, remaining)}
	}
	whole, err := r.readWhole(head, size)
	if err != nil {
		return Batch{}, err
	}
	m, err := CheckMessage(whole, r.pos)
	if err != nil {
		return Batch{}, err
	}
	b := Batch{Magic: m.Magic, Message: m, Position: r.pos, Bytes: whole}
	r.pos += size
	return b, nil
}

// readWhole returns the entry of size bytes at the current position, of which
// head is already read, in the reused buffer.
func (r *BatchReader) readWhole(head []byte, size int64) ([]byte, error) {
	if int64(cap(r.buf)) < size {
		grown := make([]byte, size)
		copy(grown, head)
		r.buf = grown
	}
	whole := r.buf[:size]
	if int64(len(head)) >= size {
		return whole, nil
	}
	if err := r.readAt(whole[len(head):], r.pos+int64(len(head))); err != nil {
		return nil, err
	}
	return whole, nil
}

// CheckMessage makes the checks of Kafka 0.10.0.0's LogSegment.recover on one
// complete v0 or v1 entry (entry.message.ensureValid(), then the fields a
// Message reads): the stored CRC-32 equal to the computed one, the key and value
// within the message, a codec of that era. The error is a *CorruptBatchError at
// position pos.
func CheckMessage(entry []byte, pos int64) (MessageHeader, error) {
	if len(entry) < MinLegacyEntrySize {
		return MessageHeader{}, &CorruptBatchError{Position: pos, Incomplete: true,
			Reason: fmt.Sprintf("incomplete message: %d bytes, at least %d needed", len(entry), MinLegacyEntrySize)}
	}
	stored, computed := binary.BigEndian.Uint32(entry[offsetMessageCRC:]), messageCRC(entry)
	if stored != computed {
		return MessageHeader{}, &CorruptBatchError{Position: pos,
			Reason: fmt.Sprintf("Message is corrupt (stored crc = %d, computed crc = %d)", stored, computed)}
	}
	m, err := parseMessage(entry)
	if err != nil {
		return m, &CorruptBatchError{Position: pos, Reason: err.Error()}
	}
	if c := m.Codec(); !Format(m.Magic).supports(c) || int(c) >= len(codecNames) {
		return m, &CorruptBatchError{Position: pos, Reason: fmt.Sprintf("Unknown Codec: %d", int(c))}
	}
	if m.Offset < 0 {
		return m, &CorruptBatchError{Position: pos, Reason: fmt.Sprintf("Message has a negative offset %d", m.Offset)}
	}
	return m, nil
}

// readAt fills p from offset off; a file shorter than announced is an I/O error.
func (r *BatchReader) readAt(p []byte, off int64) error {
	n, err := r.src.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("read segment at %d: %w", off, err)
}
