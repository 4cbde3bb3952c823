package recovery

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/segmentio/kafka-go/protocol"
)

// LogConfig describes the log WriteLog writes.
type LogConfig struct {
	// Topic names the partition folders "<topic>-<n>"; default "recovery".
	Topic string
	// Partitions, Segments (per partition), BatchesPerSegment and
	// RecordsPerBatch size the log.
	Partitions, Segments, BatchesPerSegment, RecordsPerBatch int
	// ValueBytes is the size of every record value.
	ValueBytes int
	// Codec compresses every batch.
	Codec Codec
	// IndexIntervalBytes places offset index entries (Kafka's
	// index.interval.bytes); 0 means DefaultIndexIntervalBytes.
	IndexIntervalBytes int
	// FlushedSegments is how many leading segments of every partition the
	// recovery-point checkpoint marks as flushed; recovery starts after them.
	// 0, the default, is a broker that crashed before its first flush.
	FlushedSegments int
	// Seed varies the record contents; the same config writes the same bytes.
	Seed uint64
}

// DefaultLogConfig returns the sizes of the issue: 4 partitions × 20 segments ×
// 500 batches × 20 records of 512-byte values, zstd.
func DefaultLogConfig() LogConfig {
	return LogConfig{
		Topic: "recovery", Partitions: 4, Segments: 20, BatchesPerSegment: 500,
		RecordsPerBatch: 20, ValueBytes: 512, Codec: CodecZstd,
		IndexIntervalBytes: DefaultIndexIntervalBytes,
	}
}

func (c *LogConfig) normalize() error {
	if c.Topic == "" {
		c.Topic = "recovery"
	}
	if c.IndexIntervalBytes == 0 {
		c.IndexIntervalBytes = DefaultIndexIntervalBytes
	}
	switch {
	case c.Partitions < 1, c.Segments < 1, c.BatchesPerSegment < 1, c.RecordsPerBatch < 1:
		return fmt.Errorf("%w: partitions, segments, batches and records must be at least 1", ErrInvalidConfig)
	case c.ValueBytes < 0 || c.ValueBytes > 1<<20:
		return fmt.Errorf("%w: value size %d outside 0…1 MiB", ErrInvalidConfig, c.ValueBytes)
	case int(c.Codec) < 0 || int(c.Codec) >= len(codecNames):
		return fmt.Errorf("%w: codec %d", ErrInvalidConfig, c.Codec)
	case c.IndexIntervalBytes < 0:
		return fmt.Errorf("%w: negative index interval", ErrInvalidConfig)
	case c.FlushedSegments < 0 || c.FlushedSegments > c.Segments:
		return fmt.Errorf("%w: flushed segments %d outside 0…%d", ErrInvalidConfig, c.FlushedSegments, c.Segments)
	case int64(c.Segments)*int64(c.BatchesPerSegment)*int64(c.RecordsPerBatch) > 1<<40:
		return fmt.Errorf("%w: too many records", ErrInvalidConfig)
	}
	return nil
}

// LogInfo describes a log WriteLog wrote.
type LogInfo struct {
	// Dir is the log directory.
	Dir string
	// Partitions describes every partition folder.
	Partitions []PartitionInfo
	// Batches, Records and Bytes are totals over the partitions; Bytes counts
	// segment bytes, UncompressedBytes the record keys and values.
	Batches, Records, Bytes, UncompressedBytes int64
}

// PartitionInfo describes one partition WriteLog wrote.
type PartitionInfo struct {
	// Name is the folder name, "<topic>-<n>".
	Name string
	// Segments holds the base offset of every segment.
	Segments []int64
	// RecoveryPoint is the offset written to the checkpoint.
	RecoveryPoint int64
	// LogEndOffset is the offset after the last record.
	LogEndOffset int64
	// IndexEntries is the number of offset index entries written.
	IndexEntries int
}

// WriteLog writes a log directory as a broker has it: one folder per partition,
// segments of record batches v2 encoded by kafka-go's protocol.RecordSet with
// their offset indexes, and the recovery-point-offset-checkpoint.
func WriteLog(ctx context.Context, dir string, cfg LogConfig) (LogInfo, error) {
	if err := cfg.normalize(); err != nil {
		return LogInfo{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return LogInfo{}, err
	}
	info := LogInfo{Dir: dir}
	w := &logWriter{cfg: cfg, gen: recordGenerator{seed: cfg.Seed, valueBytes: cfg.ValueBytes}}
	points := map[TopicPartition]int64{}
	for p := range cfg.Partitions {
		pi, err := w.writePartition(ctx, dir, p, &info)
		if err != nil {
			return info, err
		}
		info.Partitions = append(info.Partitions, pi)
		points[TopicPartition{cfg.Topic, p}] = pi.RecoveryPoint
	}
	return info, WriteRecoveryPoints(dir, points)
}

// logWriter holds the buffers reused for every batch.
type logWriter struct {
	cfg     LogConfig
	gen     recordGenerator
	data    []byte // keys and values of one batch
	records []protocol.Record
	encoded bytes.Buffer
}

func (w *logWriter) writePartition(ctx context.Context, dir string, p int, info *LogInfo) (PartitionInfo, error) {
	cfg := w.cfg
	pi := PartitionInfo{Name: PartitionDirName(cfg.Topic, p)}
	pdir := filepath.Join(dir, pi.Name)
	if err := os.MkdirAll(pdir, 0o755); err != nil {
		return pi, err
	}
	perSegment := int64(cfg.BatchesPerSegment) * int64(cfg.RecordsPerBatch)
	for s := range cfg.Segments {
		base := int64(s) * perSegment
		if s == cfg.FlushedSegments {
			pi.RecoveryPoint = base
		}
		entries, err := w.writeSegment(ctx, pdir, p, base, info)
		if err != nil {
			return pi, err
		}
		pi.Segments = append(pi.Segments, base)
		pi.IndexEntries += entries
	}
	pi.LogEndOffset = int64(cfg.Segments) * perSegment
	if cfg.FlushedSegments == cfg.Segments {
		pi.RecoveryPoint = pi.LogEndOffset
	}
	return pi, nil
}

// writeSegment writes one segment and its index; it returns the index entries.
func (w *logWriter) writeSegment(ctx context.Context, pdir string, p int, base int64, info *LogInfo) (int, error) {
	cfg := w.cfg
	f, err := os.Create(filepath.Join(pdir, SegmentFileName(base, logSuffix)))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	out := bufio.NewWriterSize(f, 256<<10)
	index := newIndexBuilder(base, cfg.IndexIntervalBytes, nil)
	var pos int64
	for b := range cfg.BatchesPerSegment {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		first := base + int64(b)*int64(cfg.RecordsPerBatch)
		batch, err := w.encodeBatch(p, first)
		if err != nil {
			return 0, err
		}
		if index.due(pos) {
			if err := index.add(first, pos); err != nil {
				return 0, err
			}
		}
		if _, err := out.Write(batch); err != nil {
			return 0, err
		}
		pos += int64(len(batch))
		info.Batches++
		info.Records += int64(cfg.RecordsPerBatch)
		info.Bytes += int64(len(batch))
		info.UncompressedBytes += int64(len(w.data))
	}
	if err := out.Flush(); err != nil {
		return 0, err
	}
	if err := f.Close(); err != nil {
		return 0, err
	}
	if err := os.WriteFile(filepath.Join(pdir, SegmentFileName(base, indexSuffix)), index.buf, 0o644); err != nil {
		return 0, err
	}
	return index.entries(), nil
}

// encodeBatch returns the batch of records first…first+RecordsPerBatch-1 as
// kafka-go encodes it, without the 4-byte size that RecordSet.WriteTo puts in
// front, and with its base offset set (bytes 0–7 are outside the CRC).
func (w *logWriter) encodeBatch(p int, first int64) ([]byte, error) {
	cfg := w.cfg
	w.data = w.data[:0]
	type span struct{ k0, k1, v1 int }
	spans := make([]span, cfg.RecordsPerBatch)
	for i := range spans {
		k0 := len(w.data)
		w.data = w.gen.key(w.data, p, first+int64(i))
		k1 := len(w.data)
		w.data = w.gen.value(w.data, p, first+int64(i))
		spans[i] = span{k0, k1, len(w.data)}
	}
	w.records = w.records[:0]
	for i, s := range spans {
		w.records = append(w.records, protocol.Record{
			Offset: first + int64(i),
			Time:   time.UnixMilli(recordTime + first + int64(i)),
			Key:    protocol.NewBytes(w.data[s.k0:s.k1:s.k1]),
			Value:  protocol.NewBytes(w.data[s.k1:s.v1:s.v1]),
		})
	}
	rs := protocol.RecordSet{
		Version:    2,
		Attributes: protocol.Attributes(cfg.Codec),
		Records:    protocol.NewRecordReader(w.records...),
	}
	w.encoded.Reset()
	if _, err := rs.WriteTo(&w.encoded); err != nil {
		return nil, fmt.Errorf("encode batch at offset %d: %w", first, err)
	}
	b := w.encoded.Bytes()
	if len(b) < 4+BatchHeaderSize || int(binary.BigEndian.Uint32(b)) != len(b)-4 {
		return nil, fmt.Errorf("encode batch at offset %d: kafka-go wrote %d bytes with a bad size prefix", first, len(b))
	}
	batch := b[4:]
	binary.BigEndian.PutUint64(batch[offsetBaseOffset:], uint64(first))
	return batch, nil
}
