package recovery

import (
	"encoding/binary"
	"fmt"
	"os"
)

// IndexEntrySize is the size of one offset index entry: a 4-byte offset relative to
// the segment's base offset and a 4-byte byte position in the segment.
const IndexEntrySize = 8

// DefaultIndexIntervalBytes is Kafka's index.interval.bytes default.
const DefaultIndexIntervalBytes = 4096

// IndexEntry is one entry of a segment's offset index.
type IndexEntry struct {
	// Offset is the absolute offset of the first record of the indexed batch.
	Offset int64
	// Position is the byte offset of that batch in the segment file.
	Position int64
}

// indexBuilder decides where entries go, with the rule shared by
// LogSegment.append and LogSegment.recover: an entry for the batch at position p
// when more than interval bytes were written since the last entry.
type indexBuilder struct {
	base      int64
	interval  int64
	lastEntry int64
	buf       []byte
}

func newIndexBuilder(base int64, interval int, buf []byte) *indexBuilder {
	return &indexBuilder{base: base, interval: int64(interval), buf: buf[:0]}
}

// due reports whether the batch at position pos gets an entry.
func (b *indexBuilder) due(pos int64) bool { return pos-b.lastEntry > b.interval }

// add appends the entry for the batch at pos whose first offset is offset.
func (b *indexBuilder) add(offset, pos int64) error {
	rel := offset - b.base
	if rel < 0 || rel > 1<<31-1 || pos > 1<<31-1 {
		return fmt.Errorf("%w: offset %d at position %d does not fit the index of segment %d", ErrCorruptRecord, offset, pos, b.base)
	}
	b.buf = binary.BigEndian.AppendUint32(b.buf, uint32(rel))
	b.buf = binary.BigEndian.AppendUint32(b.buf, uint32(pos))
	b.lastEntry = pos
	return nil
}

func (b *indexBuilder) entries() int { return len(b.buf) / IndexEntrySize }

// ReadIndex reads a segment's offset index file; base is the segment's base offset.
func ReadIndex(path string, base int64) ([]IndexEntry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b)%IndexEntrySize != 0 {
		return nil, fmt.Errorf("recovery: index %s: size %d is not a multiple of %d", path, len(b), IndexEntrySize)
	}
	entries := make([]IndexEntry, 0, len(b)/IndexEntrySize)
	for i := 0; i < len(b); i += IndexEntrySize {
		entries = append(entries, IndexEntry{
			Offset:   base + int64(binary.BigEndian.Uint32(b[i:])),
			Position: int64(binary.BigEndian.Uint32(b[i+4:])),
		})
	}
	return entries, nil
}
