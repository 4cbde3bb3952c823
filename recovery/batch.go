package recovery

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// Record batch v2 layout (big-endian), as in DESIGN.md's appendix and Kafka's
// DefaultRecordBatch.
const (
	offsetBaseOffset      = 0  // int64
	offsetBatchLength     = 8  // int32: bytes after this field
	offsetLeaderEpoch     = 12 // int32
	offsetMagic           = 16 // int8, = 2
	offsetCRC             = 17 // uint32, CRC-32C of attributes…end
	offsetAttributes      = 21 // int16, bits 0–2 codec
	offsetLastOffsetDelta = 23 // int32
	offsetFirstTimestamp  = 27 // int64
	offsetMaxTimestamp    = 35 // int64
	offsetProducerID      = 43 // int64
	offsetProducerEpoch   = 51 // int16
	offsetBaseSequence    = 53 // int32
	offsetRecordCount     = 57 // int32

	// BatchHeaderSize is the size of the v2 batch header; records follow it.
	BatchHeaderSize = 61
	// logOverhead is baseOffset plus batchLength: the bytes not counted by batchLength.
	logOverhead = 12
	// batchMagic is the magic byte of record batch v2.
	batchMagic = 2
	// codecMask selects the compression codec in the attributes.
	codecMask = 0x07
)

// castagnoli is the CRC-32C table of record batch v2 checksums.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// BatchHeader is the fixed 61-byte header of a record batch v2.
type BatchHeader struct {
	BaseOffset           int64
	BatchLength          int32
	PartitionLeaderEpoch int32
	Magic                int8
	CRC                  uint32
	Attributes           int16
	LastOffsetDelta      int32
	FirstTimestamp       int64
	MaxTimestamp         int64
	ProducerID           int64
	ProducerEpoch        int16
	BaseSequence         int32
	RecordCount          int32
}

// Codec is the compression codec in the attributes.
func (h BatchHeader) Codec() Codec { return Codec(h.Attributes & codecMask) }

// Size is the whole batch in bytes, header included.
func (h BatchHeader) Size() int64 { return int64(h.BatchLength) + logOverhead }

// LastOffset is the offset of the last record, from the header alone.
func (h BatchHeader) LastOffset() int64 { return h.BaseOffset + int64(h.LastOffsetDelta) }

// ParseBatchHeader decodes the first BatchHeaderSize bytes of b. It checks nothing
// but the length of b; see CheckBatch for the checks recovery makes.
func ParseBatchHeader(b []byte) (BatchHeader, error) {
	if len(b) < BatchHeaderSize {
		return BatchHeader{}, fmt.Errorf("%w: batch header needs %d bytes, have %d", ErrCorruptRecord, BatchHeaderSize, len(b))
	}
	be := binary.BigEndian
	return BatchHeader{
		BaseOffset:           int64(be.Uint64(b[offsetBaseOffset:])),
		BatchLength:          int32(be.Uint32(b[offsetBatchLength:])),
		PartitionLeaderEpoch: int32(be.Uint32(b[offsetLeaderEpoch:])),
		Magic:                int8(b[offsetMagic]),
		CRC:                  be.Uint32(b[offsetCRC:]),
		Attributes:           int16(be.Uint16(b[offsetAttributes:])),
		LastOffsetDelta:      int32(be.Uint32(b[offsetLastOffsetDelta:])),
		FirstTimestamp:       int64(be.Uint64(b[offsetFirstTimestamp:])),
		MaxTimestamp:         int64(be.Uint64(b[offsetMaxTimestamp:])),
		ProducerID:           int64(be.Uint64(b[offsetProducerID:])),
		ProducerEpoch:        int16(be.Uint16(b[offsetProducerEpoch:])),
		BaseSequence:         int32(be.Uint32(b[offsetBaseSequence:])),
		RecordCount:          int32(be.Uint32(b[offsetRecordCount:])),
	}, nil
}

// BatchCRC computes the CRC-32C that a v2 batch stores: over the bytes from the
// attributes to the end of the batch.
func BatchCRC(batch []byte) uint32 {
	if len(batch) < offsetAttributes {
		return 0
	}
	return crc32.Checksum(batch[offsetAttributes:], castagnoli)
}

// CheckBatch makes the checks of LogSegment.recover on one complete batch: magic 2,
// a stored CRC equal to the computed one, a codec it knows and sane header counts.
// The error is a *CorruptBatchError at position pos.
func CheckBatch(batch []byte, pos int64) (BatchHeader, error) {
	h, err := ParseBatchHeader(batch)
	if err != nil {
		return h, &CorruptBatchError{Position: pos, Incomplete: true, Reason: err.Error()}
	}
	if h.Magic != batchMagic {
		return h, &CorruptBatchError{Position: pos, Reason: fmt.Sprintf("Invalid magic found in record: %d", h.Magic)}
	}
	if h.Size() != int64(len(batch)) {
		return h, &CorruptBatchError{Position: pos, Reason: fmt.Sprintf("Record batch is corrupt (the size %d is not the %d bytes read)", h.Size(), len(batch))}
	}
	if got := BatchCRC(batch); got != h.CRC {
		return h, &CorruptBatchError{Position: pos, Reason: fmt.Sprintf("Record is corrupt (stored crc = %d, computed crc = %d)", h.CRC, got)}
	}
	if c := h.Codec(); int(c) >= len(codecNames) {
		return h, &CorruptBatchError{Position: pos, Reason: fmt.Sprintf("Unknown compression type id %d", int(c))}
	}
	if h.RecordCount < 0 || h.LastOffsetDelta < 0 {
		return h, &CorruptBatchError{Position: pos, Reason: fmt.Sprintf("Record batch is corrupt (record count %d, last offset delta %d)", h.RecordCount, h.LastOffsetDelta)}
	}
	if h.BaseOffset < 0 || h.BaseOffset > h.BaseOffset+int64(h.LastOffsetDelta) {
		return h, &CorruptBatchError{Position: pos, Reason: fmt.Sprintf("Record batch is corrupt (base offset %d)", h.BaseOffset)}
	}
	return h, nil
}
