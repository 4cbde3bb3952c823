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

// smallLog is a log of record batches v2 small enough for every test: 2
// partitions × 3 segments × 12 batches × 6 records of 300 bytes, with index
// entries every 1000 bytes so every segment has several.
func smallLog(codec Codec) LogConfig {
	return formatLog(FormatV2, codec)
}

// formatLog is smallLog in the given message format.
func formatLog(format Format, codec Codec) LogConfig {
	return LogConfig{Topic: "orders", Partitions: 2, Segments: 3, BatchesPerSegment: 12,
		RecordsPerBatch: 6, ValueBytes: 300, Codec: codec, Format: format, IndexIntervalBytes: 1000, Seed: 7}
}

// eachFormatAndCodec runs f for every format and every codec Kafka wrote in it.
func eachFormatAndCodec(t *testing.T, f func(t *testing.T, format Format, codec Codec)) {
	for _, format := range Formats {
		for _, codec := range Codecs {
			if !format.supports(codec) {
				continue
			}
			t.Run(format.String()+"/"+codec.String(), func(t *testing.T) { f(t, format, codec) })
		}
	}
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

// TestRoundTripEveryCodecAndVariant recovers a valid log of every format and
// codec with every variant: every batch's offsets, each variant's index entries
// as its Kafka version computes them, the deep iterators it opens and leaves
// open, and the files left as they were (the index rebuilt as the writer's
// Kafka version wrote it, when the variant's version is the same).
func TestRoundTripEveryCodecAndVariant(t *testing.T) {
	eachFormatAndCodec(t, func(t *testing.T, format Format, codec Codec) {
		cfg := formatLog(format, codec)
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
			entries := checkIndexRule(t, variant, cfg, res)
			got := readFiles(t, copied)
			for name, b := range written {
				same := bytes.Equal(got[name], b)
				if strings.HasSuffix(name, indexSuffix) && !writerIndexMatches(cfg, variant) {
					continue // checked against the variant's own rule above
				}
				if !same {
					t.Errorf("%s: recovery changed %s of a valid log", variant, name)
				}
			}
			checkIteratorCounters(t, cfg, variant, info, entries, res)
			if i == 0 {
				reference = comparable(res)
			} else if got := comparable(res); !reflect.DeepEqual(got, reference) {
				t.Errorf("%s recovered\n%+v\nheader recovered\n%+v", variant, got, reference)
			}
		}
	})
}

// writerIndexMatches reports whether the variant rebuilds the index the writer
// wrote: 0.10.0.0's LogSegment.append indexed a message set's first offset, as
// 0.10's recover does (but per appended set, where recover goes per message of
// an uncompressed set); modern Kafka indexes a batch's last offset in both.
func writerIndexMatches(cfg LogConfig, v Variant) bool {
	if cfg.Format.Legacy() {
		return v != VariantHeader && cfg.Codec.Compressed()
	}
	return v == VariantHeader
}

// expectedEntries lists the (first, last) offsets of the entries of segment s
// as the writer makes them: a batch or wrapper per batch, or, for uncompressed
// v0 and v1, a message per record.
func expectedEntries(cfg LogConfig, s int) [][2]int64 {
	perBatch := int64(cfg.RecordsPerBatch)
	base := int64(s) * int64(cfg.BatchesPerSegment) * perBatch
	var out [][2]int64
	for b := range int64(cfg.BatchesPerSegment) {
		first := base + b*perBatch
		if cfg.Format.Legacy() && !cfg.Codec.Compressed() {
			for o := first; o < first+perBatch; o++ {
				out = append(out, [2]int64{o, o})
			}
			continue
		}
		out = append(out, [2]int64{first, first + perBatch - 1})
	}
	return out
}

// comparable strips what differs between variants: the paths and the index
// entries (checked on their own), the iterator counters.
func comparable(res Result) Result {
	out := res
	out.Partitions = nil
	for _, p := range res.Partitions {
		q := p
		q.Recovered = nil
		for _, s := range p.Recovered {
			s.Path = filepath.Base(s.Path)
			s.Batches = nil
			q.Recovered = append(q.Recovered, s)
		}
		out.Partitions = append(out.Partitions, q)
	}
	out.IteratorsOpened, out.IteratorsClosed, out.RecordsDecompressed = 0, 0, 0
	return out
}

// checkRecoveredOffsets checks every entry's offsets against the offsets the
// writer gave the records. The first offset of a compressed v0 or v1 wrapper is
// known only where a deep iterator read it.
func checkRecoveredOffsets(t *testing.T, variant Variant, cfg LogConfig, res Result) {
	t.Helper()
	perSegment := int64(cfg.BatchesPerSegment) * int64(cfg.RecordsPerBatch)
	if len(res.Partitions) != cfg.Partitions {
		t.Fatalf("%s: %d partitions recovered, want %d", variant, len(res.Partitions), cfg.Partitions)
	}
	wrappers := cfg.Format.Legacy() && cfg.Codec.Compressed()
	for p, pr := range res.Partitions {
		if pr.Name != PartitionDirName(cfg.Topic, p) || pr.LogEndOffset != int64(cfg.Segments)*perSegment ||
			pr.NumSegments != cfg.Segments || len(pr.Recovered) != cfg.Segments {
			t.Fatalf("%s: partition %d: %+v", variant, p, pr)
		}
		for s, sr := range pr.Recovered {
			want := expectedEntries(cfg, s)
			if sr.BaseOffset != int64(s)*perSegment || sr.TruncatedBytes != 0 || sr.Corruption != nil || len(sr.Batches) != len(want) {
				t.Fatalf("%s: %s segment %d: %+v", variant, pr.Name, s, sr)
			}
			for b, bo := range sr.Batches {
				first := want[b][0]
				if wrappers && (variant == VariantHeader || bo.IndexOffset < 0) {
					first = -1
				}
				if bo.FirstOffset != first || bo.LastOffset != want[b][1] {
					t.Fatalf("%s: %s segment %d entry %d: offsets %d…%d, want %d…%d",
						variant, pr.Name, s, b, bo.FirstOffset, bo.LastOffset, first, want[b][1])
				}
			}
		}
	}
}

// checkIndexRule checks every rebuilt index against Kafka's rule, restated here
// on its own: walking the entries of the file in order, the entry at position p
// gets an index entry when p minus the position of the last one (0 at the
// start) is more than the interval, so the first never does; its offset is the
// entry's last offset for header (modern Kafka) and its first for the 0.10
// variants. It returns the number of index entries.
func checkIndexRule(t *testing.T, variant Variant, cfg LogConfig, res Result) int64 {
	t.Helper()
	var n int64
	for _, pr := range res.Partitions {
		for s, sr := range pr.Recovered {
			got, err := ReadIndex(strings.TrimSuffix(sr.Path, logSuffix)+indexSuffix, sr.BaseOffset)
			if err != nil {
				t.Fatal(err)
			}
			offsets := expectedEntries(cfg, s)
			positions := entryPositions(t, sr.Path)
			if len(positions) != len(offsets) {
				t.Fatalf("%s segment %d: %d entries in the file, want %d", pr.Name, sr.BaseOffset, len(positions), len(offsets))
			}
			var want []IndexEntry
			last := int64(0)
			for i, pos := range positions {
				if pos-last > int64(cfg.IndexIntervalBytes) {
					offset := offsets[i][0]
					if variant == VariantHeader {
						offset = offsets[i][1]
					}
					want = append(want, IndexEntry{Offset: offset, Position: pos})
					last = pos
				}
			}
			if len(want) < 2 || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s %s segment %d: index %v, want %v", variant, pr.Name, sr.BaseOffset, got, want)
			}
			n += int64(len(want))
		}
	}
	return n
}

// entryPositions walks a segment file by the size field every format has at
// byte 8 (the bytes after the 12-byte log overhead), without the package's
// reader.
func entryPositions(t *testing.T, path string) []int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for pos := 0; pos < len(b); pos += 12 + int(binary.BigEndian.Uint32(b[pos+8:])) {
		out = append(out, int64(pos))
	}
	return out
}

// checkIteratorCounters checks the deep iterators against what each variant's
// Kafka version does: one per index entry of a compressed entry (never for
// header), left open only by 0.10.0.0 over a v0 wrapper (lazy) or a v2 batch,
// reading one message lazily and every message eagerly.
func checkIteratorCounters(t *testing.T, cfg LogConfig, variant Variant, info LogInfo, entries int64, res Result) {
	t.Helper()
	codec, n := cfg.Codec, int64(cfg.RecordsPerBatch)
	wantOpened := entries
	if !codec.Compressed() || variant == VariantHeader {
		wantOpened = 0
	}
	wantClosed, wantRecords := wantOpened, wantOpened
	eager := cfg.Format == FormatV1
	switch variant {
	case VariantLeaky:
		if !eager {
			wantClosed = 0
		}
	case VariantDrain:
		eager = true
	}
	if eager {
		wantRecords = wantOpened * n
	}
	if res.IteratorsOpened != wantOpened || res.IteratorsClosed != wantClosed || res.RecordsDecompressed != wantRecords {
		t.Errorf("%s/%s/%s: opened %d closed %d decompressed %d records, want %d %d %d", cfg.Format, codec, variant,
			res.IteratorsOpened, res.IteratorsClosed, res.RecordsDecompressed, wantOpened, wantClosed, wantRecords)
	}
	if res.IndexEntries != entries {
		t.Errorf("%s/%s/%s: %d index entries, the rule says %d", cfg.Format, codec, variant, res.IndexEntries, entries)
	}
	if res.Batches != info.Batches || res.Records != info.Records || res.Bytes != info.Bytes {
		t.Errorf("%s/%s/%s: %d batches %d records %d bytes, want %d %d %d", cfg.Format, codec, variant,
			res.Batches, res.Records, res.Bytes, info.Batches, info.Records, info.Bytes)
	}
}

// TestSegmentsReadableByKafkaGo reads every segment with kafka-go's own decoder,
// protocol.RecordSet.ReadFrom (record batches v2, and message sets v0 and v1 with
// their CRC-32), and checks base offsets, record offsets, keys, values and
// timestamps against what the writer generated. kafka-go turns every wrapper's
// inner offsets into absolute ones as v1 asks, which is wrong for v0 wrappers
// (whose inner offsets are absolute already), so their offsets are not compared.
func TestSegmentsReadableByKafkaGo(t *testing.T) {
	eachFormatAndCodec(t, func(t *testing.T, format Format, codec Codec) {
		{
			cfg := formatLog(format, codec)
			wantBatches := cfg.BatchesPerSegment
			if format.Legacy() && !codec.Compressed() {
				wantBatches *= cfg.RecordsPerBatch
			}
			wantVersion := int8(2)
			if format.Legacy() {
				wantVersion = 1
			}
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
					if !ok || len(stream.Records) != wantBatches || rs.Version != wantVersion || rs.Attributes.Compression() != 0 && int(rs.Attributes.Compression()) != int(codec) {
						t.Fatalf("kafka-go read %T with %d batches, version %d, attributes %v", rs.Records, len(stream.Records), rs.Version, rs.Attributes)
					}
					for _, batch := range stream.Records {
						if rb, ok := batch.(*protocol.RecordBatch); ok && rb.BaseOffset != want {
							t.Fatalf("batch base offset %d, want %d", rb.BaseOffset, want)
						}
						for {
							rec, err := batch.ReadRecord()
							if errors.Is(err, io.EOF) {
								break
							}
							if err != nil {
								t.Fatal(err)
							}
							key, _ := protocol.ReadAll(rec.Key)
							value, _ := protocol.ReadAll(rec.Value)
							v0Wrapper := format == FormatV0 && codec.Compressed()
							if rec.Offset != want && !v0Wrapper || !bytes.Equal(key, gen.key(nil, p, want)) || !bytes.Equal(value, gen.value(nil, p, want)) {
								t.Fatalf("record %d: offset %d key %q value %.40q…", want, rec.Offset, key, value)
							}
							if format != FormatV0 && rec.Time.UnixMilli() != recordTime+want {
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
		}
	})
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
