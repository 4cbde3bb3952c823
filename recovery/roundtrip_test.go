package recovery

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/segmentio/kafka-go/protocol"
)

// smallLog is a log small enough for every test: 2 partitions × 3 segments × 12
// batches × 6 records of 300 bytes, with index entries every 1000 bytes so every
// segment has several.
func smallLog(codec Codec) LogConfig {
	return LogConfig{Topic: "orders", Partitions: 2, Segments: 3, BatchesPerSegment: 12,
		RecordsPerBatch: 6, ValueBytes: 300, Codec: codec, IndexIntervalBytes: 1000, Seed: 7}
}

func writeLog(t testing.TB, cfg LogConfig) (string, LogInfo) {
	t.Helper()
	dir := t.TempDir()
	info, err := WriteLog(context.Background(), dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return dir, info
}

// copyDir copies a log directory, so each variant recovers the same bytes.
func copyDir(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// readFiles returns every file of a log directory by relative path.
func readFiles(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files[rel], err = os.ReadFile(path)
		return err
	})
	return files
}

// comparable strips the paths, which differ between copies of a log.
func comparable(res Result) Result {
	out := res
	out.Partitions = nil
	for _, p := range res.Partitions {
		q := p
		q.Recovered = nil
		for _, s := range p.Recovered {
			s.Path = filepath.Base(s.Path)
			q.Recovered = append(q.Recovered, s)
		}
		out.Partitions = append(out.Partitions, q)
	}
	out.IteratorsOpened, out.IteratorsClosed, out.RecordsDecompressed = 0, 0, 0
	return out
}

func TestRoundTripEveryCodecAndVariant(t *testing.T) {
	for _, codec := range Codecs {
		t.Run(codec.String(), func(t *testing.T) {
			cfg := smallLog(codec)
			dir, info := writeLog(t, cfg)
			written := readFiles(t, dir)
			var reference Result
			for i, variant := range []Variant{VariantHeader, VariantDrain, VariantClose, VariantLeaky} {
				copied := copyDir(t, dir)
				res, err := Recover(context.Background(), copied, RecoverConfig{
					Variant: variant, IndexIntervalBytes: cfg.IndexIntervalBytes, KeepBatches: true})
				if err != nil {
					t.Fatalf("%s: %v", variant, err)
				}
				checkRecoveredOffsets(t, variant, cfg, res)
				checkIndexRule(t, res, cfg.IndexIntervalBytes)
				if got := readFiles(t, copied); !reflect.DeepEqual(got, written) {
					t.Errorf("%s: recovery changed the files of a valid log (indexes must be rebuilt identical)", variant)
				}
				checkIteratorCounters(t, codec, variant, info, res)
				if i == 0 {
					reference = comparable(res)
				} else if got := comparable(res); !reflect.DeepEqual(got, reference) {
					t.Errorf("%s recovered\n%+v\nheader recovered\n%+v", variant, got, reference)
				}
			}
		})
	}
}

// checkRecoveredOffsets checks every batch's offsets against the offsets the
// writer gave the records: batch b of segment s starts at (s·batches+b)·records.
func checkRecoveredOffsets(t *testing.T, variant Variant, cfg LogConfig, res Result) {
	t.Helper()
	perBatch := int64(cfg.RecordsPerBatch)
	perSegment := int64(cfg.BatchesPerSegment) * perBatch
	if len(res.Partitions) != cfg.Partitions {
		t.Fatalf("%s: %d partitions recovered, want %d", variant, len(res.Partitions), cfg.Partitions)
	}
	for p, pr := range res.Partitions {
		if pr.Name != PartitionDirName(cfg.Topic, p) || pr.LogEndOffset != int64(cfg.Segments)*perSegment ||
			pr.NumSegments != cfg.Segments || len(pr.Recovered) != cfg.Segments {
			t.Fatalf("%s: partition %d: %+v", variant, p, pr)
		}
		for s, sr := range pr.Recovered {
			base := int64(s) * perSegment
			if sr.BaseOffset != base || sr.TruncatedBytes != 0 || sr.Corruption != nil || len(sr.Batches) != cfg.BatchesPerSegment {
				t.Fatalf("%s: %s segment %d: %+v", variant, pr.Name, s, sr)
			}
			for b, bo := range sr.Batches {
				first := base + int64(b)*perBatch
				if bo.FirstOffset != first || bo.LastOffset != first+perBatch-1 {
					t.Fatalf("%s: %s segment %d batch %d: offsets %d…%d, want %d…%d",
						variant, pr.Name, s, b, bo.FirstOffset, bo.LastOffset, first, first+perBatch-1)
				}
			}
		}
	}
}

// checkIndexRule checks every rebuilt index against Kafka's rule, restated here
// on its own: walking the batches in order, the batch at position p gets an entry
// (its first offset, p) when p minus the position of the last entry (0 at the
// start) is more than the interval, so the first batch never does.
func checkIndexRule(t *testing.T, res Result, interval int) {
	t.Helper()
	for _, pr := range res.Partitions {
		for _, sr := range pr.Recovered {
			got, err := ReadIndex(strings.TrimSuffix(sr.Path, logSuffix)+indexSuffix, sr.BaseOffset)
			if err != nil {
				t.Fatal(err)
			}
			var want []IndexEntry
			last := int64(0)
			for _, b := range sr.Batches {
				if b.Position-last > int64(interval) {
					want = append(want, IndexEntry{Offset: b.FirstOffset, Position: b.Position})
					last = b.Position
				}
			}
			if len(want) < 2 || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s segment %d: index %v, want %v", pr.Name, sr.BaseOffset, got, want)
			}
		}
	}
}

func checkIteratorCounters(t *testing.T, codec Codec, variant Variant, info LogInfo, res Result) {
	t.Helper()
	wantOpened := info.Batches
	if !codec.Compressed() || variant == VariantHeader {
		wantOpened = 0
	}
	wantClosed, wantRecords := wantOpened, wantOpened
	switch variant {
	case VariantLeaky:
		wantClosed = 0
	case VariantDrain:
		wantRecords = info.Records
		if wantOpened == 0 {
			wantRecords = 0
		}
	}
	if res.IteratorsOpened != wantOpened || res.IteratorsClosed != wantClosed || res.RecordsDecompressed != wantRecords {
		t.Errorf("%s/%s: opened %d closed %d decompressed %d records, want %d %d %d", codec, variant,
			res.IteratorsOpened, res.IteratorsClosed, res.RecordsDecompressed, wantOpened, wantClosed, wantRecords)
	}
	if res.Batches != info.Batches || res.Records != info.Records || res.Bytes != info.Bytes {
		t.Errorf("%s/%s: %d batches %d records %d bytes, want %d %d %d", codec, variant,
			res.Batches, res.Records, res.Bytes, info.Batches, info.Records, info.Bytes)
	}
}

// TestSegmentsReadableByKafkaGo reads every segment with kafka-go's own decoder,
// protocol.RecordSet.ReadFrom, and checks base offsets, record offsets, keys and
// values against what the writer generated.
func TestSegmentsReadableByKafkaGo(t *testing.T) {
	for _, codec := range Codecs {
		t.Run(codec.String(), func(t *testing.T) {
			cfg := smallLog(codec)
			dir, _ := writeLog(t, cfg)
			gen := recordGenerator{seed: cfg.Seed, valueBytes: cfg.ValueBytes}
			for p := range cfg.Partitions {
				segs, err := listSegments(filepath.Join(dir, PartitionDirName(cfg.Topic, p)))
				if err != nil || len(segs) != cfg.Segments {
					t.Fatalf("segments: %v %v", segs, err)
				}
				want := int64(0)
				for _, seg := range segs {
					b, err := os.ReadFile(seg.path)
					if err != nil {
						t.Fatal(err)
					}
					framed := binary.BigEndian.AppendUint32(nil, uint32(len(b)))
					var rs protocol.RecordSet
					if _, err := rs.ReadFrom(bytes.NewReader(append(framed, b...))); err != nil {
						t.Fatalf("kafka-go cannot read %s: %v", seg.path, err)
					}
					stream, ok := rs.Records.(*protocol.RecordStream)
					if !ok || len(stream.Records) != cfg.BatchesPerSegment || rs.Version != 2 || rs.Attributes.Compression() != 0 && int(rs.Attributes.Compression()) != int(codec) {
						t.Fatalf("kafka-go read %T with %d batches, version %d, attributes %v", rs.Records, len(stream.Records), rs.Version, rs.Attributes)
					}
					for _, batch := range stream.Records {
						rb := batch.(*protocol.RecordBatch)
						if rb.BaseOffset != want {
							t.Fatalf("batch base offset %d, want %d", rb.BaseOffset, want)
						}
						for {
							rec, err := rb.ReadRecord()
							if errors.Is(err, io.EOF) {
								break
							}
							if err != nil {
								t.Fatal(err)
							}
							key, _ := protocol.ReadAll(rec.Key)
							value, _ := protocol.ReadAll(rec.Value)
							if rec.Offset != want || !bytes.Equal(key, gen.key(nil, p, want)) || !bytes.Equal(value, gen.value(nil, p, want)) {
								t.Fatalf("record %d: offset %d key %q value %.40q…", want, rec.Offset, key, value)
							}
							if rec.Time.UnixMilli() != recordTime+want {
								t.Fatalf("record %d: time %v", want, rec.Time)
							}
							want++
						}
					}
				}
				if want != int64(cfg.Segments*cfg.BatchesPerSegment*cfg.RecordsPerBatch) {
					t.Fatalf("kafka-go read %d records", want)
				}
			}
		})
	}
}

// TestDeepIteratorReadsWhatWasWritten drains every batch through both decoder sets
// and compares the records with what the writer generated.
func TestDeepIteratorReadsWhatWasWritten(t *testing.T) {
	for _, codec := range Codecs {
		for _, decoders := range []Decoders{DecodersModel, DecodersKafkaGo} {
			t.Run(codec.String()+"/"+decoders.String(), func(t *testing.T) {
				cfg := smallLog(codec)
				cfg.Partitions, cfg.Segments = 1, 1
				dir, _ := writeLog(t, cfg)
				gen := recordGenerator{seed: cfg.Seed, valueBytes: cfg.ValueBytes}
				f, err := os.Open(filepath.Join(dir, PartitionDirName(cfg.Topic, 0), SegmentFileName(0, logSuffix)))
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				st, _ := f.Stat()
				batches := NewBatchReader(f, st.Size(), 0)
				want := int64(0)
				for {
					b, err := batches.Next()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					it, err := OpenDeepIterator(b.Header, bytes.Clone(b.Records()), decoders)
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
						if rec.Offset != want || !bytes.Equal(rec.Key, gen.key(nil, 0, want)) ||
							!bytes.Equal(rec.Value, gen.value(nil, 0, want)) || rec.Timestamp != recordTime+want {
							t.Fatalf("record %d: %+v", want, rec)
						}
						want++
					}
					if it.RecordsRead() != cfg.RecordsPerBatch {
						t.Fatalf("iterator read %d records", it.RecordsRead())
					}
					it.Close()
					if _, err := it.Next(); !errors.Is(err, ErrIteratorClosed) {
						t.Fatalf("Next after Close: %v", err)
					}
				}
				if want != int64(cfg.BatchesPerSegment*cfg.RecordsPerBatch) {
					t.Fatalf("read %d records", want)
				}
			})
		}
	}
}

func TestRecoveryPointSkipsFlushedSegments(t *testing.T) {
	cfg := smallLog(CodecGzip)
	cfg.Partitions, cfg.Segments, cfg.FlushedSegments = 1, 4, 2
	dir, info := writeLog(t, cfg)
	perSegment := int64(cfg.BatchesPerSegment * cfg.RecordsPerBatch)
	if rp := info.Partitions[0].RecoveryPoint; rp != 2*perSegment {
		t.Fatalf("recovery point %d, want %d", rp, 2*perSegment)
	}
	// Damage a flushed segment: recovery must not look at it.
	flushed := filepath.Join(dir, "orders-0", SegmentFileName(0, logSuffix))
	b, _ := os.ReadFile(flushed)
	b[100] ^= 0xff
	os.WriteFile(flushed, b, 0o644)
	res, err := Recover(context.Background(), dir, RecoverConfig{Variant: VariantClose, IndexIntervalBytes: cfg.IndexIntervalBytes})
	if err != nil {
		t.Fatal(err)
	}
	pr := res.Partitions[0]
	if len(pr.Recovered) != 2 || pr.Recovered[0].BaseOffset != 2*perSegment || pr.Recovered[1].BaseOffset != 3*perSegment ||
		pr.NumSegments != 4 || pr.LogEndOffset != 4*perSegment || res.Segments != 2 || res.Truncations != 0 {
		t.Fatalf("recovered %+v", pr)
	}
	if st, _ := os.Stat(flushed); st.Size() != int64(len(b)) {
		t.Fatalf("flushed segment changed size")
	}
}

func TestRecoveryPointsFile(t *testing.T) {
	dir := t.TempDir()
	points := map[TopicPartition]int64{{"b", 1}: 10, {"a", 0}: 0, {"a", 12}: 1 << 40}
	if err := WriteRecoveryPoints(dir, points); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, RecoveryPointFile))
	if want := "0\n3\na 0 0\na 12 1099511627776\nb 1 10\n"; string(b) != want {
		t.Fatalf("file is %q, want %q", b, want)
	}
	got, err := ReadRecoveryPoints(dir)
	if err != nil || !reflect.DeepEqual(got, points) {
		t.Fatalf("read back %v, %v", got, err)
	}
	for _, bad := range []string{"", "1\n0\n", "0\nx\n", "0\n2\na 0 1\n", "0\n1\na b 1\n", "0\n1\na 0 -1\n", "0\n1\na 0\n"} {
		if _, err := parseRecoveryPoints([]byte(bad)); !errors.Is(err, ErrBadCheckpoint) {
			t.Errorf("%q: err %v, want ErrBadCheckpoint", bad, err)
		}
	}
}

func TestRecoverRejectsEmptyDirectory(t *testing.T) {
	if _, err := Recover(context.Background(), t.TempDir(), RecoverConfig{}); !errors.Is(err, ErrNoLog) {
		t.Fatalf("err %v, want ErrNoLog", err)
	}
}

func TestParseNames(t *testing.T) {
	for _, c := range Codecs {
		if got, err := ParseCodec(c.String()); err != nil || got != c {
			t.Errorf("ParseCodec(%q) = %v, %v", c, got, err)
		}
	}
	for _, v := range Variants {
		if got, err := ParseVariant(v.String()); err != nil || got != v {
			t.Errorf("ParseVariant(%q) = %v, %v", v, got, err)
		}
	}
	if _, err := ParseCodec("brotli"); !errors.Is(err, ErrUnknownCodec) {
		t.Errorf("ParseCodec(brotli): %v", err)
	}
	if _, err := ParseVariant("fixed"); !errors.Is(err, ErrUnknownVariant) {
		t.Errorf("ParseVariant(fixed): %v", err)
	}
}

// TestIndexRuleBoundary pins the comparison of LogSegment.recover,
// "if(validBytes - lastIndexEntry > indexIntervalBytes)": exactly the interval
// since the last entry is not enough.
func TestIndexRuleBoundary(t *testing.T) {
	b := newIndexBuilder(1000, 100, nil)
	var got []int64
	for i, pos := range []int64{0, 100, 101, 201, 302, 402, 403} {
		if b.due(pos) {
			if err := b.add(1000+int64(i), pos); err != nil {
				t.Fatal(err)
			}
			got = append(got, pos)
		}
	}
	if want := []int64{101, 302, 403}; !reflect.DeepEqual(got, want) {
		t.Fatalf("entries at %v, want %v", got, want)
	}
	entries, err := func() ([]IndexEntry, error) {
		path := t.TempDir() + "/x.index"
		if err := os.WriteFile(path, b.buf, 0o644); err != nil {
			return nil, err
		}
		return ReadIndex(path, 1000)
	}()
	if err != nil || !reflect.DeepEqual(entries, []IndexEntry{{1002, 101}, {1004, 302}, {1006, 403}}) {
		t.Fatalf("index file reads back as %v, %v", entries, err)
	}
	if err := b.add(999, 500); err == nil {
		t.Fatal("an offset below the segment's base offset was indexed")
	}
}
