package recovery

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Damage is a corruption of one compressed batch's payload whose checksum is
// then recomputed, so the batch passes the CRC check of every Kafka version and
// only a reader that decompresses far enough sees it.
type Damage struct {
	// Batch is the batch's number in the first segment of partition 0.
	Batch int
	// Trailer flips a byte of the gzip trailer (its CRC-32 of the decompressed
	// data), seen only at the end of the stream; otherwise a byte in the middle
	// of the compressed data is flipped, past the first inner record.
	Trailer bool
}

// DamageReport says what Corrupt changed.
type DamageReport struct {
	// Segment is the damaged segment file.
	Segment string
	// Position is the batch's byte offset in it, FirstOffset its first offset.
	Position, FirstOffset int64
	// Byte is the flipped byte's offset in the file.
	Byte int64
	// Indexed is true when the batch gets an offset index entry by Kafka's rule,
	// the only batches 0.10 decompresses during recovery.
	Indexed bool
}

// ErrNoSuchBatch is returned by Corrupt for a batch the log does not have or
// that is not compressed.
var ErrNoSuchBatch = errors.New("recovery: no such compressed batch")

// Corrupt damages the log directory dir, written by WriteLog with cfg, as d says:
// one byte of a compressed payload flipped and the batch's CRC (CRC-32C of a v2
// batch, CRC-32 of a v0 or v1 wrapper) recomputed.
func Corrupt(dir string, cfg LogConfig, d Damage) (DamageReport, error) {
	if err := cfg.normalize(); err != nil {
		return DamageReport{}, err
	}
	if !cfg.Codec.Compressed() {
		return DamageReport{}, fmt.Errorf("%w: the log is not compressed", ErrNoSuchBatch)
	}
	path := filepath.Join(dir, PartitionDirName(cfg.Topic, 0), SegmentFileName(0, logSuffix))
	rep := DamageReport{Segment: path}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return rep, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return rep, err
	}
	r := NewBatchReader(f, st.Size(), 0)
	index := newIndexBuilder(0, cfg.IndexIntervalBytes, nil)
	for n := 0; ; n++ {
		b, err := r.Next()
		if errors.Is(err, io.EOF) || n > d.Batch {
			return rep, fmt.Errorf("%w: batch %d of %s", ErrNoSuchBatch, d.Batch, path)
		}
		if err != nil {
			return rep, err
		}
		rep.Indexed = index.due(b.Position)
		if rep.Indexed {
			index.lastEntry = b.Position
		}
		if n < d.Batch {
			continue
		}
		payload := b.Records()
		at := len(payload) / 2
		if d.Trailer {
			if b.Codec() != CodecGzip {
				return rep, fmt.Errorf("%w: only gzip has a trailer to damage", ErrNoSuchBatch)
			}
			at = len(payload) - 8 // the trailer's CRC-32
		}
		entry := b.Bytes
		start := len(entry) - len(payload)
		entry[start+at] ^= 0x55
		if b.Legacy() {
			binary.BigEndian.PutUint32(entry[offsetMessageCRC:], messageCRC(entry))
			rep.FirstOffset = b.LastOffset() - int64(cfg.RecordsPerBatch) + 1
		} else {
			binary.BigEndian.PutUint32(entry[offsetCRC:], BatchCRC(entry))
			rep.FirstOffset = b.Header.BaseOffset
		}
		rep.Position, rep.Byte = b.Position, b.Position+int64(start+at)
		if _, err := f.WriteAt(entry, b.Position); err != nil {
			return rep, err
		}
		return rep, f.Close()
	}
}
