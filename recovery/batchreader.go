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

// Batch is one complete, checked record batch of a segment.
type Batch struct {
	// Header is the decoded v2 header.
	Header BatchHeader
	// Position is the byte offset of the batch in the segment file.
	Position int64
	// Bytes is the whole batch, header included. It is valid only until the
	// next call to BatchReader.Next.
	Bytes []byte
}

// Records is the records section of the batch (compressed as a whole when the
// codec is not none).
func (b Batch) Records() []byte { return b.Bytes[BatchHeaderSize:] }

// BatchReader reads the batches of one segment in order, checking each the way
// LogSegment.recover does. It reads with ReadAt, so it never moves a file offset,
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
	if remaining < BatchHeaderSize {
		return Batch{}, &CorruptBatchError{Position: r.pos, Incomplete: true,
			Reason: fmt.Sprintf("incomplete batch: %d bytes left in the file, a batch header needs %d", remaining, BatchHeaderSize)}
	}
	if cap(r.buf) < BatchHeaderSize {
		r.buf = make([]byte, BatchHeaderSize, 64<<10)
	}
	head := r.buf[:BatchHeaderSize]
	if err := r.readAt(head, r.pos); err != nil {
		return Batch{}, err
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
	if int64(cap(r.buf)) < size {
		grown := make([]byte, size)
		copy(grown, head)
		r.buf = grown
	}
	whole := r.buf[:size]
	if err := r.readAt(whole[BatchHeaderSize:], r.pos+BatchHeaderSize); err != nil {
		return Batch{}, err
	}
	h, err := CheckBatch(whole, r.pos)
	if err != nil {
		return Batch{}, err
	}
	b := Batch{Header: h, Position: r.pos, Bytes: whole}
	r.pos += size
	return b, nil
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
