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

	"github.com/segmentio/kafka-go/compress"
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
	// Format is the message format: v0 and v1 write a compressed batch as one
	// wrapper message holding the inner message set, v2 record batches.
	Format Format
	// IndexIntervalBytes places offset index entries (Kafka's
	// index.interval.bytes); 0 means DefaultIndexIntervalBytes.
	IndexIntervalBytes int
	// FlushedSegments is how many leading segments of every partition the
	// recovery-point checkpoint marks as flushed; recovery starts after them.
	// 0, the default, is a broker that crashed before its first flush.
	FlushedSegments int
	// Seed varies the record contents; the same config writes the same bytes.
	Seed uint64
	// Progress, when set, is called after every segment written (its index
	// included), from WriteLog's goroutine.
	Progress func(WriteProgress)
}

// WriteProgress is how far WriteLog has come: segments written of all the
// log's segments (every partition's), and the totals so far.
type WriteProgress struct {
	SegmentsWritten, Segments int64
	Batches, Records, Bytes   int64
}

// DefaultLogConfig returns the log of KAFKA-3933 as it happened: 4 partitions ×
// 20 segments × 500 batches × 20 records of 512-byte values, gzip, in message
// format v0, the format of the brokers that leaked.
func DefaultLogConfig() LogConfig {
	return LogConfig{
		Topic: "recovery", Partitions: 4, Segments: 20, BatchesPerSegment: 500,
		RecordsPerBatch: 20, ValueBytes: 512, Codec: CodecGzip, Format: FormatV0,
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
	case c.Format < 0 || int(c.Format) >= len(formatNames):
		return fmt.Errorf("%w: format %d", ErrInvalidConfig, c.Format)
	case !c.Format.supports(c.Codec):
		return fmt.Errorf("%w: %s came with Kafka 2.1 in record batches v2; message format %s has no %s", ErrInvalidConfig, c.Codec, c.Format, c.Codec)
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
	// Batches, Records and Bytes are totals over the partitions; Batches counts
	// entries (batches, wrapper messages, or plain v0 and v1 messages), Bytes
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
// segments with their offset indexes, and the recovery-point-offset-checkpoint.
// Format v2 segments hold record batches encoded by kafka-go's
// protocol.RecordSet, indexed at each batch's last offset as modern Kafka's
// LogSegment.append does; v0 and v1 segments hold messages as Kafka 0.10.0.0's
// ByteBufferMessageSet wrote them (a compressed batch is one wrapper message),
// indexed at each message set's first offset as its LogSegment.append did.
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
	inner   []byte // a v0 or v1 message set before compression
	wrapper []byte // its wrapper message
	written int64  // segments written, for Progress
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
		if cfg.Progress != nil {
			w.written++
			cfg.Progress(WriteProgress{SegmentsWritten: w.written, Segments: int64(cfg.Partitions) * int64(cfg.Segments),
				Batches: info.Batches, Records: info.Records, Bytes: info.Bytes})
		}
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
		var batch []byte
		var err error
		indexed := first
		if cfg.Format.Legacy() {
			batch, err = w.encodeMessageSet(p, first)
		} else {
			batch, err = w.encodeBatch(p, first)
			indexed = first + int64(cfg.RecordsPerBatch) - 1
		}
		if err != nil {
			return 0, err
		}
		if index.due(pos) {
			if err := index.add(indexed, pos); err != nil {
				return 0, err
			}
		}
		if _, err := out.Write(batch); err != nil {
			return 0, err
		}
		pos += int64(len(batch))
		info.Batches++
		if cfg.Format.Legacy() && !cfg.Codec.Compressed() {
			info.Batches += int64(cfg.RecordsPerBatch) - 1 // one entry per message
		}
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

// encodeMessageSet returns the records first…first+RecordsPerBatch-1 as a
// message set of format v0 or v1, as Kafka 0.10.0.0's ByteBufferMessageSet
// writes it: plain messages when not compressed, else one wrapper message whose
// value is the compressed inner messages (absolute offsets in v0, relative
// offsets 0…n-1 in v1) and whose offset is the last inner offset.
func (w *logWriter) encodeMessageSet(p int, first int64) ([]byte, error) {
	cfg := w.cfg
	magic := int8(cfg.Format)
	n := int64(cfg.RecordsPerBatch)
	w.data = w.data[:0]
	w.inner = w.inner[:0]
	for i := range n {
		off := first + i
		k0 := len(w.data)
		w.data = w.gen.key(w.data, p, off)
		k1 := len(w.data)
		w.data = w.gen.value(w.data, p, off)
		inner := off
		if magic > 0 && cfg.Codec.Compressed() {
			inner = i
		}
		w.inner = appendMessage(w.inner, inner, magic, 0, recordTime+off, w.data[k0:k1], w.data[k1:])
	}
	if !cfg.Codec.Compressed() {
		return w.inner, nil
	}
	w.encoded.Reset()
	zw := compress.Compression(cfg.Codec).Codec().NewWriter(&w.encoded)
	if _, err := zw.Write(w.inner); err != nil {
		return nil, fmt.Errorf("compress message set at offset %d: %w", first, err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("compress message set at offset %d: %w", first, err)
	}
	last := first + n - 1
	w.wrapper = appendMessage(w.wrapper[:0], last, magic, int8(cfg.Codec), recordTime+last, nil, w.encoded.Bytes())
	return w.wrapper, nil
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
