package recovery

import (
	"bytes"
	stdgzip "compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// seedSegments returns small real segments of record batches v2, one per codec
// in codec order.
func seedSegments(f *testing.F) [][]byte {
	var segs [][]byte
	for _, codec := range Codecs {
		segs = append(segs, seedSegment(f, FormatV2, codec))
	}
	return segs
}

// legacySeedSegments returns small real segments of message formats v0 and v1,
// of every codec those formats have.
func legacySeedSegments(f *testing.F) [][]byte {
	var segs [][]byte
	for _, format := range []Format{FormatV0, FormatV1} {
		for _, codec := range []Codec{CodecNone, CodecGzip, CodecSnappy, CodecLz4} {
			segs = append(segs, seedSegment(f, format, codec))
		}
	}
	return segs
}

func seedSegment(f *testing.F, format Format, codec Codec) []byte {
	dir := f.TempDir()
	cfg := LogConfig{Partitions: 1, Segments: 1, BatchesPerSegment: 3, RecordsPerBatch: 4, ValueBytes: 64, Codec: codec, Format: format}
	if _, err := WriteLog(context.Background(), dir, cfg); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, PartitionDirName("recovery", 0), SegmentFileName(0, logSuffix)))
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// fixCRCs rewrites the CRC of every batch- or message-shaped region (CRC-32C of
// a v2 batch, CRC-32 of a v0 or v1 message), so that the fuzzer gets past the
// checksum to the records and the decompressors.
func fixCRCs(data []byte) {
	for pos := 0; len(data)-pos > offsetMagic; {
		size := int(int32(binary.BigEndian.Uint32(data[pos+offsetBatchLength:]))) + logOverhead
		if size < MinLegacyEntrySize || size > len(data)-pos {
			return
		}
		entry := data[pos : pos+size]
		switch {
		case entry[offsetMagic] < batchMagic:
			binary.BigEndian.PutUint32(entry[offsetMessageCRC:], messageCRC(entry))
		case size >= BatchHeaderSize:
			binary.BigEndian.PutUint32(entry[offsetCRC:], BatchCRC(entry))
		default:
			return
		}
		pos += size
	}
}

// FuzzBatchReader reads arbitrary bytes as a segment and drains every batch it
// accepts through a deep iterator. Nothing may panic or hang; the reader must stop
// with io.EOF or a *CorruptBatchError at a position inside the data.
func FuzzBatchReader(f *testing.F) {
	for _, seg := range append(seedSegments(f), legacySeedSegments(f)...) {
		f.Add(seg, false)
		f.Add(seg[:len(seg)-7], true)
	}
	f.Add([]byte{}, false)
	f.Add(make([]byte, 200), true)
	f.Fuzz(func(t *testing.T, data []byte, fix bool) {
		if fix {
			fixCRCs(data)
		}
		r := NewBatchReader(bytes.NewReader(data), int64(len(data)), 1<<20)
		next := int64(0)
		for {
			b, err := r.Next()
			if errors.Is(err, io.EOF) {
				if next != int64(len(data)) {
					t.Fatalf("EOF at %d of %d bytes", next, len(data))
				}
				return
			}
			var corrupt *CorruptBatchError
			if errors.As(err, &corrupt) {
				if corrupt.Position != next || r.Position() != next {
					t.Fatalf("corruption at %d, reader at %d, expected %d", corrupt.Position, r.Position(), next)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if b.Legacy() {
				if b.Position != next || b.Size() != int64(len(b.Bytes)) || messageCRC(b.Bytes) != b.Message.CRC {
					t.Fatalf("message at %d: %+v", next, b.Message)
				}
				next += b.Size()
				if b.Codec().Compressed() {
					for _, d := range []Decoders{DecodersModel, DecodersKafkaGo} {
						drainLegacy(t, b.Message, bytes.Clone(b.Records()), d)
					}
				}
				continue
			}
			if b.Position != next || b.Header.Size() != int64(len(b.Bytes)) || BatchCRC(b.Bytes) != b.Header.CRC {
				t.Fatalf("batch at %d: %+v", next, b.Header)
			}
			next += b.Header.Size()
			for _, d := range []Decoders{DecodersModel, DecodersKafkaGo} {
				drain(t, b.Header, bytes.Clone(b.Records()), d)
			}
		}
	})
}

// drain reads a batch through a deep iterator to its end and closes it.
func drain(t *testing.T, h BatchHeader, records []byte, d Decoders) {
	it, err := OpenDeepIterator(h, records, d)
	if err != nil {
		if !errors.Is(err, ErrCorruptRecord) {
			t.Fatalf("open: %v does not wrap ErrCorruptRecord", err)
		}
		return
	}
	defer it.Close()
	for n := 0; ; n++ {
		rec, err := it.Next()
		if errors.Is(err, io.EOF) {
			if n != int(h.RecordCount) {
				t.Fatalf("EOF after %d of %d records", n, h.RecordCount)
			}
			return
		}
		if err != nil {
			if !errors.Is(err, ErrCorruptRecord) {
				t.Fatalf("record %d: %v does not wrap ErrCorruptRecord", n, err)
			}
			return
		}
		if rec.Offset < h.BaseOffset || rec.Offset > h.LastOffset() {
			t.Fatalf("record offset %d outside %d…%d", rec.Offset, h.BaseOffset, h.LastOffset())
		}
	}
}

// drainLegacy reads a wrapper through 0.10.0.1's deep iterator (eager, closed in
// a finally) and checks what it may return: inner messages with offsets, or an
// error Kafka's recover either catches (ErrCorruptRecord) or not
// (ErrRecoveryAborted); the stream is closed either way.
func drainLegacy(t *testing.T, m MessageHeader, payload []byte, d Decoders) {
	it, err := OpenLegacyIterator(m, payload, d, true)
	if err != nil {
		if !errors.Is(err, ErrCorruptRecord) && !errors.Is(err, ErrRecoveryAborted) {
			t.Fatalf("open: %v wraps neither ErrCorruptRecord nor ErrRecoveryAborted", err)
		}
		if it != nil && !it.StreamClosed() {
			t.Fatal("0.10.0.1's iterator left its stream open after an error")
		}
		return
	}
	if !it.StreamClosed() {
		t.Fatal("0.10.0.1's iterator left its stream open")
	}
	for n := 0; ; n++ {
		if _, err := it.Next(); err != nil {
			if !errors.Is(err, io.EOF) || n != it.RecordsRead() {
				t.Fatalf("after %d of %d messages: %v", n, it.RecordsRead(), err)
			}
			return
		}
	}
}

// FuzzLegacyIterator feeds arbitrary bytes as the compressed value of a v0 or v1
// wrapper, through 0.10.0.0's iterator (lazy for v0: one Next, then Close) and
// 0.10.0.1's (eager). Nothing may panic or hang; errors are of the two kinds.
func FuzzLegacyIterator(f *testing.F) {
	for _, seg := range legacySeedSegments(f) {
		m, err := parseMessage(seg[:logOverhead+binary.BigEndian.Uint32(seg[offsetBatchLength:])])
		if err == nil && m.Codec().Compressed() {
			f.Add(uint8(m.Magic), uint8(m.Codec()), m.Value)
		}
	}
	f.Fuzz(func(t *testing.T, magic, codec uint8, payload []byte) {
		m := MessageHeader{Offset: 1000, Magic: int8(magic % 2), Attributes: int8(1 + codec%3)}
		for _, d := range []Decoders{DecodersModel, DecodersKafkaGo} {
			drainLegacy(t, m, bytes.Clone(payload), d)
			it, err := OpenLegacyIterator(m, bytes.Clone(payload), d, false)
			if it != nil {
				if err == nil {
					_, err = it.Next()
				}
				it.Close()
			}
			if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, ErrCorruptRecord) && !errors.Is(err, ErrRecoveryAborted) {
				t.Fatalf("0.10.0.0: %v wraps neither ErrCorruptRecord nor ErrRecoveryAborted", err)
			}
		}
	})
}

// FuzzDeepIterator feeds arbitrary bytes as the records section of a batch of
// every codec, with both decoder sets.
func FuzzDeepIterator(f *testing.F) {
	for _, seg := range seedSegments(f) {
		h, _ := ParseBatchHeader(seg)
		f.Add(uint8(h.Codec()), seg[BatchHeaderSize:h.Size()], h.RecordCount)
	}
	f.Fuzz(func(t *testing.T, codec uint8, records []byte, count int32) {
		h := BatchHeader{BaseOffset: 1000, Attributes: int16(codec % 5), RecordCount: count, LastOffsetDelta: 1 << 20, Magic: 2}
		for _, d := range []Decoders{DecodersModel, DecodersKafkaGo} {
			drain(t, h, bytes.Clone(records), d)
		}
	})
}

// FuzzGzipReader compares the off-heap gzip reader with compress/gzip: whatever
// the standard library decodes, the model decodes to the same bytes.
func FuzzGzipReader(f *testing.F) {
	for _, in := range gzipInputs(f) {
		if len(in[0]) < 4096 {
			f.Add(in[0])
		}
	}
	for _, seg := range seedSegments(f)[CodecGzip : CodecGzip+1] {
		h, _ := ParseBatchHeader(seg)
		f.Add(seg[BatchHeaderSize:h.Size()])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got []byte
		g, err := newGzipReader(data)
		if err == nil {
			got, err = io.ReadAll(io.LimitReader(g, 64<<20))
			g.Close()
		}
		if err != nil && !errors.Is(err, ErrCorruptRecord) {
			t.Fatalf("error %v does not wrap ErrCorruptRecord", err)
		}
		std, stdErr := stdgzip.NewReader(bytes.NewReader(data))
		if stdErr != nil {
			return
		}
		want, stdErr := io.ReadAll(io.LimitReader(std, 64<<20))
		if stdErr != nil {
			return
		}
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("compress/gzip decodes %d bytes, the model %d bytes with %v", len(want), len(got), err)
		}
	})
}

// FuzzRecover recovers an arbitrary segment file end to end: recovery must leave
// the file at its valid size, and a second recovery must find nothing to do.
func FuzzRecover(f *testing.F) {
	for _, seg := range append(seedSegments(f), legacySeedSegments(f)...) {
		f.Add(seg, false, uint8(VariantDrain))
		f.Add(append(bytes.Clone(seg), 1, 2, 3), true, uint8(VariantClose))
	}
	f.Fuzz(func(t *testing.T, data []byte, fix bool, variant uint8) {
		if fix {
			fixCRCs(data)
		}
		v := []Variant{VariantClose, VariantDrain, VariantHeader}[variant%3]
		dir := t.TempDir()
		pdir := filepath.Join(dir, "fuzz-0")
		os.Mkdir(pdir, 0o755)
		path := filepath.Join(pdir, SegmentFileName(0, logSuffix))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := Recover(context.Background(), dir, RecoverConfig{Variant: v, IndexIntervalBytes: 100})
		if errors.Is(err, ErrRecoveryAborted) {
			return // what 0.10 threw out of recover; the broker would stop
		}
		if err != nil {
			t.Fatal(err)
		}
		sr := res.Partitions[0].Recovered[0]
		st, err := os.Stat(path)
		if err != nil || st.Size() != sr.ValidBytes || sr.ValidBytes+sr.TruncatedBytes != int64(len(data)) {
			t.Fatalf("file is %d bytes, recovery says %d valid + %d truncated of %d", st.Size(), sr.ValidBytes, sr.TruncatedBytes, len(data))
		}
		again, err := Recover(context.Background(), dir, RecoverConfig{Variant: v, IndexIntervalBytes: 100})
		if err != nil || again.Truncations != 0 || again.Partitions[0].LogEndOffset != res.Partitions[0].LogEndOffset {
			t.Fatalf("second recovery: %+v, %v", again, err)
		}
	})
}
