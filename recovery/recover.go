package recovery

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

// RecoverConfig says how Recover recovers a log directory.
type RecoverConfig struct {
	// Variant is how the first offset of a compressed batch is learned.
	Variant Variant
	// Decoders chooses the decompressors behind deep iterators.
	Decoders Decoders
	// IndexIntervalBytes places offset index entries; 0 means
	// DefaultIndexIntervalBytes. Use the value the log was written with to get
	// the same index back.
	IndexIntervalBytes int
	// MaxBatchBytes bounds the size a batch header may claim; 0 means
	// DefaultMaxBatchBytes.
	MaxBatchBytes int
	// Log receives Kafka-style log lines; nil discards them.
	Log io.Writer
	// Progress, when set, is called after every recovered segment.
	Progress func(Progress)
	// KeepBatches fills SegmentResult.Batches with the offsets of every batch.
	KeepBatches bool
}

// Counters are the running totals of a recovery.
type Counters struct {
	// SegmentsDone counts unflushed segments recovered or deleted so far;
	// Segments is how many there are in all.
	SegmentsDone, Segments int64
	// Batches, Records and Bytes count the valid entries (batches, wrapper
	// messages or plain v0 and v1 messages), their records (from v2 headers, or
	// from the offsets of v0 and v1 entries) and their bytes in the recovered
	// segments.
	Batches, Records, Bytes int64
	// IndexEntries counts the offset index entries rebuilt.
	IndexEntries int64
	// IteratorsOpened and IteratorsClosed count deep iterators (one per index
	// entry of a compressed entry, none for header); the difference is what the
	// leaky variant leaves behind.
	IteratorsOpened, IteratorsClosed int64
	// RecordsDecompressed counts records read through deep iterators.
	RecordsDecompressed int64
	// Truncations counts segments truncated at an invalid or incomplete batch,
	// TruncatedBytes the bytes cut off, SegmentsDeleted the later segments
	// deleted after a truncation.
	Truncations, TruncatedBytes, SegmentsDeleted int64
}

// Progress is what Recover reports after every segment.
type Progress struct {
	Counters
	// Partition and Segment name the segment just recovered (or deleted).
	Partition string
	Segment   int64
	// Offheap is the process-wide state of the gzip model's off-heap memory.
	Offheap OffheapStats
}

// Result is the outcome of a recovery.
type Result struct {
	Counters
	// Partitions holds one result per partition folder, in order.
	Partitions []PartitionResult
}

// PartitionResult is the outcome for one partition.
type PartitionResult struct {
	// Name is the folder name, "<topic>-<n>".
	Name string
	// RecoveryPoint is the checkpointed offset recovery started from.
	RecoveryPoint int64
	// LogEndOffset is the offset after the last valid record.
	LogEndOffset int64
	// NumSegments is the number of segments after recovery.
	NumSegments int
	// Recovered lists the unflushed segments, in order.
	Recovered []SegmentResult
	// Deleted lists the base offsets of segments deleted after a truncation.
	Deleted []int64
}

// SegmentResult is the outcome for one recovered segment.
type SegmentResult struct {
	// BaseOffset and Path identify the segment.
	BaseOffset int64
	Path       string
	// ValidBytes is the size of the segment after recovery; TruncatedBytes
	// what was cut off.
	ValidBytes, TruncatedBytes int64
	// Corruption says where and why the segment was truncated; nil when it was
	// valid to its end.
	Corruption *CorruptBatchError
	// IndexEntries is the number of entries of the rebuilt offset index.
	IndexEntries int
	// NextOffset is the offset after the last valid record of the segment.
	NextOffset int64
	// Batches holds every valid batch, with RecoverConfig.KeepBatches only.
	Batches []BatchOffsets
}

// BatchOffsets locates one valid batch.
type BatchOffsets struct {
	// Position is the byte offset of the batch in its segment.
	Position int64
	// FirstOffset is the first offset, from the header of a v2 batch or a plain
	// message, through the deep iterator where one was opened, else -1 (a v0 or
	// v1 wrapper's header holds only its last offset). LastOffset comes from the
	// header.
	FirstOffset, LastOffset int64
	// IndexOffset is the offset of the index entry recovery made for the
	// batch, -1 when none was due.
	IndexOffset int64
}

// Recover does what a Kafka broker does with a log directory after an unclean
// shutdown: for every partition, every segment from the checkpointed recovery
// point on is read batch by batch (magic, size and CRC-32C checks), its offset
// index rebuilt, and the segment truncated at the first invalid or incomplete
// batch, with the later segments deleted. The first offset of each compressed
// batch comes from cfg.Variant. The recovery-point checkpoint is left as it is, so
// the same log can be recovered again.
func Recover(ctx context.Context, dir string, cfg RecoverConfig) (Result, error) {
	if cfg.IndexIntervalBytes == 0 {
		cfg.IndexIntervalBytes = DefaultIndexIntervalBytes
	}
	if cfg.IndexIntervalBytes < 0 || cfg.MaxBatchBytes < 0 || cfg.Variant < 0 || int(cfg.Variant) >= len(variantNames) ||
		cfg.Decoders < 0 || int(cfg.Decoders) >= len(decodersNames) {
		return Result{}, fmt.Errorf("%w: %+v", ErrInvalidConfig, cfg)
	}
	r := &recoverer{cfg: cfg, log: newKafkaLog(cfg.Log)}
	return r.run(ctx, dir)
}

// recoverer is one run of Recover.
type recoverer struct {
	cfg      RecoverConfig
	log      *kafkaLog
	res      Result
	indexBuf []byte
}

// plannedPartition is a partition with the segments to recover.
type plannedPartition struct {
	dir            partitionDir
	segments       []segmentFile
	recoveryPoint  int64
	firstUnflushed int
}

func (r *recoverer) run(ctx context.Context, dir string) (Result, error) {
	parts, err := listPartitions(dir)
	if err != nil {
		return r.res, err
	}
	if len(parts) == 0 {
		return r.res, fmt.Errorf("%w %s", ErrNoLog, dir)
	}
	points, err := ReadRecoveryPoints(dir)
	if err != nil {
		return r.res, err
	}
	r.log.begin("INFO").s("Loading logs.").end(loggerLogManager)
	plan := make([]plannedPartition, 0, len(parts))
	for _, p := range parts {
		segs, err := listSegments(p.path)
		if err != nil {
			return r.res, err
		}
		pp := plannedPartition{dir: p, segments: segs, recoveryPoint: points[TopicPartition{p.topic, p.partition}]}
		// Kafka recovers logSegments(recoveryPoint, ∞): from the segment that
		// holds the recovery point (its floor) on.
		// When no segment starts at or below it, all of them are recovered.
		for i, s := range segs {
			if s.baseOffset <= pp.recoveryPoint {
				pp.firstUnflushed = i
			}
		}
		r.res.Segments += int64(len(segs) - pp.firstUnflushed)
		plan = append(plan, pp)
	}
	for _, pp := range plan {
		if err := r.recoverPartition(ctx, pp); err != nil {
			return r.res, err
		}
	}
	r.log.begin("INFO").s("Logs loading complete.").end(loggerLogManager)
	return r.res, nil
}

func (r *recoverer) recoverPartition(ctx context.Context, pp plannedPartition) error {
	name := pp.dir.name
	pr := PartitionResult{Name: name, RecoveryPoint: pp.recoveryPoint}
	segs := pp.segments
	remaining := len(segs)
	for i := pp.firstUnflushed; i < len(segs); i++ {
		seg := segs[i]
		r.log.begin("INFO").s("Recovering unflushed segment ").d(seg.baseOffset).s(" in log ").s(name).s(".").end(loggerLog)
		sr, err := r.recoverSegment(ctx, seg)
		pr.Recovered = append(pr.Recovered, sr)
		if err != nil {
			r.res.Partitions = append(r.res.Partitions, pr)
			return err
		}
		r.res.SegmentsDone++
		r.progress(name, seg.baseOffset)
		if sr.TruncatedBytes == 0 {
			continue
		}
		r.log.begin("WARN").s("Corruption found in segment ").d(seg.baseOffset).s(" of log ").s(name).
			s(", truncating to offset ").d(sr.NextOffset).s(".").end(loggerLog)
		for _, later := range segs[i+1:] {
			// Kafka renames the files and deletes them file.delete.delay.ms later
			// (Log.scala:819-838); the model deletes them at once.
			r.log.begin("INFO").s("Scheduling log segment ").d(later.baseOffset).s(" for log ").s(name).s(" for deletion.").end(loggerLog)
			r.log.begin("INFO").s("Deleting segment ").d(later.baseOffset).s(" from log ").s(name).s(".").end(loggerLog)
			if err := removeSegment(later); err != nil {
				r.res.Partitions = append(r.res.Partitions, pr)
				return err
			}
			pr.Deleted = append(pr.Deleted, later.baseOffset)
			r.res.SegmentsDeleted++
			r.res.SegmentsDone++
			r.progress(name, later.baseOffset)
		}
		remaining = i + 1
		break
	}
	pr.NumSegments = remaining
	// The last remaining segment is always one that was recovered: the floor of
	// the recovery point is at most the last segment.
	pr.LogEndOffset = pp.recoveryPoint
	if n := len(pr.Recovered); n > 0 {
		pr.LogEndOffset = pr.Recovered[n-1].NextOffset
	}
	r.res.Partitions = append(r.res.Partitions, pr)
	r.log.begin("INFO").s("Completed load of log ").s(name).s(" with log end offset ").d(pr.LogEndOffset).end(loggerLog)
	return nil
}

func (r *recoverer) progress(partition string, segment int64) {
	if r.cfg.Progress != nil {
		r.cfg.Progress(Progress{Counters: r.res.Counters, Partition: partition, Segment: segment, Offheap: ReadOffheap()})
	}
}

// recoverSegment is LogSegment.recover: it rebuilds the index and truncates the
// segment at the first invalid batch.
func (r *recoverer) recoverSegment(ctx context.Context, seg segmentFile) (SegmentResult, error) {
	sr := SegmentResult{BaseOffset: seg.baseOffset, Path: seg.path, NextOffset: seg.baseOffset}
	f, err := os.OpenFile(seg.path, os.O_RDWR, 0)
	if err != nil {
		return sr, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return sr, err
	}
	batches := NewBatchReader(f, st.Size(), r.cfg.MaxBatchBytes)
	index := newIndexBuilder(seg.baseOffset, r.cfg.IndexIntervalBytes, r.indexBuf)
	for {
		if err := ctx.Err(); err != nil {
			return sr, err
		}
		b, err := batches.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.As(err, &sr.Corruption) {
			break
		}
		if err != nil {
			return sr, fmt.Errorf("recover %s: %w", seg.path, err)
		}
		bo := BatchOffsets{Position: b.Position, FirstOffset: shallowFirstOffset(b), LastOffset: b.LastOffset(), IndexOffset: -1}
		// LogSegment.recover: "if(validBytes - lastIndexEntry > indexIntervalBytes)";
		// only then does Kafka look for the offset to index, and only then does
		// 0.10 open a deep iterator.
		if index.due(b.Position) {
			offset, deep, err := r.indexOffset(seg, b)
			if errors.Is(err, ErrRecoveryAborted) {
				return sr, fmt.Errorf("recover %s at byte offset %d: %w", seg.path, b.Position, err)
			}
			if err == nil {
				err = index.add(offset, b.Position)
			}
			if err != nil {
				sr.Corruption = &CorruptBatchError{Position: b.Position, Reason: err.Error()}
				break
			}
			bo.IndexOffset = offset
			if deep >= 0 {
				bo.FirstOffset = deep
			}
		}
		if r.cfg.KeepBatches {
			sr.Batches = append(sr.Batches, bo)
		}
		r.res.Records += recordsIn(b, sr.NextOffset)
		sr.ValidBytes = b.Position + b.Size()
		sr.NextOffset = b.LastOffset() + 1
		r.res.Batches++
		r.res.Bytes += b.Size()
	}
	if c := sr.Corruption; c != nil && !c.Incomplete {
		r.log.begin("WARN").s("Found invalid messages in log segment ").s(seg.path).s(" at byte offset ").
			d(c.Position).s(": ").s(c.Reason).s(".").end(loggerLogSegment)
	}
	sr.TruncatedBytes = st.Size() - sr.ValidBytes
	if sr.TruncatedBytes > 0 {
		if err := f.Truncate(sr.ValidBytes); err != nil {
			return sr, err
		}
		r.res.Truncations++
		r.res.TruncatedBytes += sr.TruncatedBytes
	}
	sr.IndexEntries = index.entries()
	r.res.IndexEntries += int64(sr.IndexEntries)
	r.indexBuf = index.buf
	if err := os.WriteFile(seg.indexPath(), index.buf, 0o644); err != nil {
		return sr, err
	}
	return sr, f.Close()
}

// shallowFirstOffset is the first offset an entry's header tells: a v2 batch's
// base offset, a plain v0 or v1 message's offset; -1 for a compressed v0 or v1
// wrapper, whose header holds only the offset of its last inner message.
func shallowFirstOffset(b Batch) int64 {
	switch {
	case !b.Legacy():
		return b.Header.BaseOffset
	case !b.Codec().Compressed():
		return b.Message.Offset
	}
	return -1
}

// recordsIn counts the records of an entry: from a v2 header, or, for a v0 or
// v1 wrapper, the offsets between the end of the previous entry and its last.
func recordsIn(b Batch, next int64) int64 {
	if !b.Legacy() {
		return int64(b.Header.RecordCount)
	}
	return max(b.LastOffset()-next+1, 1)
}

// indexOffset is the offset the variant's Kafka version writes into the index
// for the entry: the last offset from the header (modern Kafka, LogSegment.java
// recover: offsetIndex().append(batch.lastOffset(), validBytes)), the entry's
// own offset when it is not compressed, else the first inner offset through a
// deep iterator (0.10: ByteBufferMessageSet.deepIterator(entry).next().offset).
// deep is that inner offset, or -1 when no iterator was opened.
func (r *recoverer) indexOffset(seg segmentFile, b Batch) (offset, deep int64, err error) {
	switch {
	case r.cfg.Variant == VariantHeader:
		return b.LastOffset(), -1, nil
	case !b.Codec().Compressed():
		return shallowFirstOffset(b), -1, nil
	case b.Legacy():
		deep, err = r.legacyFirstOffset(seg, b)
	default:
		deep, err = r.firstOffset(seg, b)
	}
	return deep, deep, err
}

// legacyFirstOffset opens 0.10's deep iterator over a v0 or v1 wrapper and takes
// its first inner offset, then closes it or not as the variant does.
func (r *recoverer) legacyFirstOffset(seg segmentFile, b Batch) (int64, error) {
	// The iterator gets its own copy, as the wrapper message owned its buffer.
	it, err := OpenLegacyIterator(b.Message, bytes.Clone(b.Records()), r.cfg.Decoders, r.cfg.Variant == VariantDrain)
	if it == nil {
		return 0, err
	}
	r.res.IteratorsOpened++
	r.log.begin("DEBUG").s("Opened deep iterator (").s(b.Codec().String()).s(", magic ").d(int64(b.Magic)).s(") for the batch at byte offset ").
		d(b.Position).s(" in log segment ").s(seg.path).end(loggerModel)
	var first int64
	if err == nil {
		var rec Record
		rec, err = it.Next()
		if errors.Is(err, io.EOF) {
			err = fmt.Errorf("%w: NoSuchElementException: the wrapper holds no message", ErrRecoveryAborted)
		}
		first = rec.Offset
	}
	r.res.RecordsDecompressed += int64(it.RecordsRead())
	if r.cfg.Variant == VariantClose {
		if cerr := it.Close(); err == nil {
			err = cerr
		}
	}
	if it.StreamClosed() {
		r.res.IteratorsClosed++
		r.log.begin("DEBUG").s("Closed deep iterator (").s(b.Codec().String()).s(", magic ").d(int64(b.Magic)).s(") for the batch at byte offset ").
			d(b.Position).s(" in log segment ").s(seg.path).s(" after ").d(int64(it.RecordsRead())).s(" messages").end(loggerModel)
	}
	return first, err
}

// firstOffset learns the first offset of a compressed v2 batch through a deep
// iterator, the variant's way. (0.10 never read v2 batches, which came with
// 0.11; this is its recover logic applied to them, which the zstd codec needs.)
func (r *recoverer) firstOffset(seg segmentFile, b Batch) (int64, error) {
	h := b.Header
	// The iterator gets its own copy of the records, as Kafka 0.10's deep
	// iterator read its wrapper message's own ByteBuffer; the batch buffer is
	// reused for the next batch.
	it, err := OpenDeepIterator(h, bytes.Clone(b.Records()), r.cfg.Decoders)
	if err != nil {
		return 0, err
	}
	r.res.IteratorsOpened++
	r.log.begin("DEBUG").s("Opened deep iterator (").s(h.Codec().String()).s(") for the batch at byte offset ").
		d(b.Position).s(" in log segment ").s(seg.path).end(loggerModel)
	rec, err := it.Next()
	first := rec.Offset
	if r.cfg.Variant == VariantDrain {
		for err == nil {
			_, err = it.Next()
		}
		if errors.Is(err, io.EOF) {
			err = nil
		}
	}
	r.res.RecordsDecompressed += int64(it.RecordsRead())
	if r.cfg.Variant == VariantLeaky {
		// Kafka 0.10.0.0: the iterator is dropped here, never closed.
		return first, err
	}
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	r.res.IteratorsClosed++
	r.log.begin("DEBUG").s("Closed deep iterator (").s(h.Codec().String()).s(") for the batch at byte offset ").
		d(b.Position).s(" in log segment ").s(seg.path).s(" after ").d(int64(it.RecordsRead())).s(" records").end(loggerModel)
	return first, err
}

// removeSegment deletes a segment's log and index files.
func removeSegment(s segmentFile) error {
	if err := os.Remove(s.path); err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := os.Remove(s.indexPath()); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}
