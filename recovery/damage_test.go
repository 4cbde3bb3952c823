package recovery

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// damagedLog is the default log shape (20 records of 512 bytes per gzip batch)
// with fewer batches: 1 partition × 3 segments × 60 batches.
func damagedLog(format Format) LogConfig {
	cfg := DefaultLogConfig()
	cfg.Partitions, cfg.Segments, cfg.BatchesPerSegment, cfg.Format = 1, 3, 60, format
	return cfg
}

// TestCorruptPayloadIsSeenOnlyByTheVariantsThatDecompressIt damages one gzip
// payload of the first segment and recomputes its CRC, so the batch passes
// every version's checksum check. Only a deep iterator that reads the stream to
// its end sees the damage, and 0.10 opens one only where an index entry is due:
//
//   - drain (0.10.0.1) reads every indexed wrapper to its end: it truncates at
//     the damaged batch and deletes the later segments;
//   - leaky and close (0.10.0.0) read a v0 wrapper lazily, its first message
//     only, and keep everything; over v1 they read eagerly and truncate too;
//   - header (modern Kafka) decompresses nothing and keeps everything;
//   - a damaged batch that gets no index entry is read by no variant.
func TestCorruptPayloadIsSeenOnlyByTheVariantsThatDecompressIt(t *testing.T) {
	for _, format := range []Format{FormatV0, FormatV1} {
		for _, c := range []struct {
			name   string
			damage Damage
		}{
			{"middle", Damage{Batch: 30}},
			{"trailer", Damage{Batch: 30, Trailer: true}},
			{"middle of an unindexed batch", Damage{Batch: 31}},
		} {
			t.Run(fmt.Sprintf("%s/%s", format, c.name), func(t *testing.T) {
				cfg := damagedLog(format)
				clean, info := writeLog(t, cfg)
				rep, err := Corrupt(clean, cfg, c.damage)
				if err != nil {
					t.Fatal(err)
				}
				// The rule, on its own: is the batch indexed?
				positions := entryPositions(t, rep.Segment)
				last, indexed := int64(0), false
				for i, pos := range positions[:c.damage.Batch+1] {
					if pos-last > int64(cfg.IndexIntervalBytes) {
						last, indexed = pos, i == c.damage.Batch
					}
				}
				if indexed != rep.Indexed || rep.Position != positions[c.damage.Batch] || rep.FirstOffset != int64(c.damage.Batch*cfg.RecordsPerBatch) {
					t.Fatalf("damage report %+v; the file says indexed %v at %d", rep, indexed, positions[c.damage.Batch])
				}
				if c.name != "middle of an unindexed batch" && !indexed || c.name == "middle of an unindexed batch" && indexed {
					t.Fatalf("batch %d indexed: %v; pick another for %q", c.damage.Batch, indexed, c.name)
				}
				for _, v := range Variants {
					dir := copyDir(t, clean)
					res, err := Recover(context.Background(), dir, RecoverConfig{Variant: v, KeepBatches: true})
					if err != nil {
						t.Fatalf("%s: %v", v, err)
					}
					pr := res.Partitions[0]
					sees := indexed && (v == VariantDrain || format == FormatV1 && v != VariantHeader)
					t.Logf("%s: log end offset %d, %d segments, %d deleted, corruption %v", v, pr.LogEndOffset, pr.NumSegments, len(pr.Deleted), pr.Recovered[0].Corruption)
					if !sees {
						if pr.LogEndOffset != info.Partitions[0].LogEndOffset || res.Truncations != 0 || pr.NumSegments != cfg.Segments {
							t.Errorf("%s: truncated a damage it never decompresses: end offset %d, %d truncations", v, pr.LogEndOffset, res.Truncations)
						}
						continue
					}
					sr := pr.Recovered[0]
					if sr.Corruption == nil || sr.Corruption.Position != rep.Position || sr.ValidBytes != rep.Position ||
						pr.LogEndOffset != rep.FirstOffset || len(pr.Deleted) != cfg.Segments-1 || !errors.Is(sr.Corruption, ErrCorruptRecord) {
						t.Errorf("%s: want truncation at byte %d (offset %d) and %d segments deleted; got %+v, end offset %d, deleted %v",
							v, rep.Position, rep.FirstOffset, cfg.Segments-1, sr.Corruption, pr.LogEndOffset, pr.Deleted)
					}
				}
			})
		}
	}
}

// TestLeakyOpensOneIteratorPerIndexEntry recovers one segment of the issue's
// default shape (500 gzip wrappers of about 2.7 kB, index.interval.bytes 4096)
// with 0.10.0.0 in both formats: an iterator only where the rule puts an index
// entry, about every other wrapper (the issue counted 19,920 for 40,000), left
// open over v0 wrappers and closed by the eager v1 read.
func TestLeakyOpensOneIteratorPerIndexEntry(t *testing.T) {
	for _, format := range []Format{FormatV0, FormatV1} {
		cfg := DefaultLogConfig()
		cfg.Partitions, cfg.Segments, cfg.Format = 1, 1, format
		dir, info := writeLog(t, cfg)
		positions := entryPositions(t, filepath.Join(dir, PartitionDirName(cfg.Topic, 0), SegmentFileName(0, logSuffix)))
		var due int64
		last := int64(0)
		for _, pos := range positions {
			if pos-last > DefaultIndexIntervalBytes {
				due, last = due+1, pos
			}
		}
		res, err := Recover(context.Background(), dir, RecoverConfig{Variant: VariantLeaky})
		if err != nil {
			t.Fatal(err)
		}
		open := res.IteratorsOpened - res.IteratorsClosed
		t.Logf("%s: %d wrappers, %d index entries due, %d iterators opened, %d left open", format, info.Batches, due, res.IteratorsOpened, open)
		wantOpen := due
		if format == FormatV1 {
			wantOpen = 0
		}
		if res.IteratorsOpened != due || res.IndexEntries != due || open != wantOpen || due < info.Batches*2/5 || due > info.Batches*3/5 {
			t.Errorf("%s: %d iterators opened, %d left open, %d index entries; the rule says %d of %d wrappers", format,
				res.IteratorsOpened, open, res.IndexEntries, due, info.Batches)
		}
	}
}

// TestLegacyIteratorReadsWhatWasWritten reads every v0 and v1 gzip wrapper
// through 0.10.0.0's iterator (lazy over v0, eager over v1) and 0.10.0.1's
// (eager) and compares every inner message with what the writer generated:
// absolute offset, key, value and, in v1, the timestamp.
func TestLegacyIteratorReadsWhatWasWritten(t *testing.T) {
	for _, format := range []Format{FormatV0, FormatV1} {
		for _, fixed := range []bool{false, true} {
			cfg := formatLog(format, CodecGzip)
			cfg.Partitions, cfg.Segments = 1, 1
			dir, _ := writeLog(t, cfg)
			gen := recordGenerator{seed: cfg.Seed, valueBytes: cfg.ValueBytes}
			f, err := os.Open(filepath.Join(dir, PartitionDirName(cfg.Topic, 0), SegmentFileName(0, logSuffix)))
			if err != nil {
				t.Fatal(err)
			}
			st, _ := f.Stat()
			r := NewBatchReader(f, st.Size(), 0)
			want := int64(0)
			for {
				b, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				it, err := OpenLegacyIterator(b.Message, bytes.Clone(b.Records()), DecodersModel, fixed)
				if err != nil {
					t.Fatal(err)
				}
				for {
					rec, err := it.Next()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					if rec.Offset != want || !bytes.Equal(rec.Key, gen.key(nil, 0, want)) || !bytes.Equal(rec.Value, gen.value(nil, 0, want)) ||
						format == FormatV1 && rec.Timestamp != recordTime+want {
						t.Fatalf("%s fixed=%v: message %d: offset %d timestamp %d key %q", format, fixed, want, rec.Offset, rec.Timestamp, rec.Key)
					}
					want++
				}
				if !it.StreamClosed() {
					t.Fatalf("%s fixed=%v: the stream is open after the last message", format, fixed)
				}
			}
			f.Close()
			if want != int64(cfg.BatchesPerSegment*cfg.RecordsPerBatch) {
				t.Fatalf("%s fixed=%v: read %d messages", format, fixed, want)
			}
		}
	}
}
