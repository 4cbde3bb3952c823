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

// seedSegments returns small real segments of every codec.
func seedSegments(f *testing.F) [][]byte {
	var segs [][]byte
	for _, codec := range Codecs {
		dir := f.TempDir()
		cfg := LogConfig{Partitions: 1, Segments: 1, BatchesPerSegment: 3, RecordsPerBatch: 4, ValueBytes: 64, Codec: codec}
		if _, err := WriteLog(context.Background(), dir, cfg); err != nil {
			f.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, PartitionDirName("recovery", 0), SegmentFileName(0, logSuffix)))
		if err != nil {
			f.Fatal(err)
		}
		segs = append(segs, b)
	}
	return segs
}

// fixCRCs rewrites the CRC of every batch-shaped region, so that the fuzzer gets
// past the checksum to the records and the decompressors.
func fixCRCs(data []byte) {
	for pos := 0; len(data)-pos >= BatchHeaderSize; {
		size := int(int32(binary.BigEndian.Uint32(data[pos+offsetBatchLength:]))) + logOverhead
		if size < BatchHeaderSize || size > len(data)-pos {
			return
		}
		batch := data[pos : pos+size]
		binary.BigEndian.PutUint32(batch[offsetCRC:], BatchCRC(batch))
		pos += size
	}
}

// FuzzBatchReader reads arbitrary bytes as a segment and drains every batch it
// accepts through a deep iterator. Nothing may panic or hang; the reader must stop
// with io.EOF or a *CorruptBatchError at a position inside the data.
func FuzzBatchReader(f *testing.F) {
	for _, seg := range seedSegments(f) {
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
	for _, seg := range seedSegments(f) {
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
