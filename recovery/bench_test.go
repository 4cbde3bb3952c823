package recovery

import (
	"bytes"
	stdgzip "compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	kgzip "github.com/klauspost/compress/gzip"
)

// benchLog is the batch shape (20 records of 512 bytes) in one partition
// of 2 segments × 200 batches.
func benchLog(codec Codec) LogConfig {
	return LogConfig{Partitions: 1, Segments: 2, BatchesPerSegment: 200, RecordsPerBatch: 20, ValueBytes: 512, Codec: codec, Format: FormatV2}
}

// BenchmarkRecover recovers the same log per codec with every variant and
// decoder set. MB/s counts segment bytes (what is read from disk); batches/s and
// the uncompressed MB/s are reported beside it.
func BenchmarkRecover(b *testing.B) {
	type logCase struct {
		format Format
		codec  Codec
	}
	var cases []logCase
	for _, codec := range Codecs {
		cases = append(cases, logCase{FormatV2, codec})
	}
	// The data KAFKA-3933 happened on: gzip wrappers in message formats v0 and v1.
	cases = append(cases, logCase{FormatV0, CodecGzip}, logCase{FormatV1, CodecGzip})
	for _, c := range cases {
		codec := c.codec
		cfg := benchLog(codec)
		cfg.Format = c.format
		prefix := ""
		if c.format != FormatV2 {
			prefix = c.format.String() + "-"
		}
		dir := b.TempDir()
		info, err := WriteLog(context.Background(), dir, cfg)
		if err != nil {
			b.Fatal(err)
		}
		for _, decoders := range []Decoders{DecodersModel, DecodersKafkaGo} {
			if decoders == DecodersKafkaGo && (codec == CodecNone || codec == CodecSnappy || codec == CodecLz4) {
				continue // the same decoders as the model
			}
			for _, v := range Variants {
				name := prefix + codec.String() + "/" + v.String()
				if decoders == DecodersKafkaGo {
					name = prefix + codec.String() + "-kafka-go/" + v.String()
				}
				b.Run(name, func(b *testing.B) {
					b.ReportAllocs()
					b.SetBytes(info.Bytes)
					cpu0 := cpuTime()
					for b.Loop() {
						if _, err := Recover(context.Background(), dir, RecoverConfig{Variant: v, Decoders: decoders}); err != nil {
							b.Fatal(err)
						}
					}
					secs := b.Elapsed().Seconds()
					b.ReportMetric(float64(info.Batches)*float64(b.N)/secs, "batches/s")
					b.ReportMetric(float64(info.UncompressedBytes)*float64(b.N)/secs/1e6, "raw-MB/s")
					// CPU time (all threads, GC included) is what a shared
					// machine's load disturbs least.
					cpu := (cpuTime() - cpu0).Seconds()
					b.ReportMetric(float64(info.Batches)*float64(b.N)/cpu, "batches/cpu-s")
				})
			}
		}
	}
}

// BenchmarkGzipDecode compares the off-heap inflater with compress/gzip and
// klauspost's gzip on one batch's records, to show what the model costs.
func BenchmarkGzipDecode(b *testing.B) {
	dir := b.TempDir()
	cfg := benchLog(CodecGzip)
	cfg.Segments, cfg.BatchesPerSegment = 1, 1
	if _, err := WriteLog(context.Background(), dir, cfg); err != nil {
		b.Fatal(err)
	}
	seg, err := os.ReadFile(filepath.Join(dir, PartitionDirName("recovery", 0), SegmentFileName(0, logSuffix)))
	if err != nil {
		b.Fatal(err)
	}
	h, _ := ParseBatchHeader(seg)
	records := seg[BatchHeaderSize:h.Size()]
	raw, _ := io.ReadAll(must(stdgzip.NewReader(bytes.NewReader(records))))
	decoders := map[string]func() (io.ReadCloser, error){
		"offheap-model":  func() (io.ReadCloser, error) { return newGzipReader(records) },
		"compress-gzip":  func() (io.ReadCloser, error) { return stdgzip.NewReader(bytes.NewReader(records)) },
		"klauspost-gzip": func() (io.ReadCloser, error) { return kgzip.NewReader(bytes.NewReader(records)) },
	}
	for name, open := range decoders {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				r, err := open()
				if err != nil {
					b.Fatal(err)
				}
				if n, err := io.Copy(io.Discard, r); err != nil || n != int64(len(raw)) {
					b.Fatal(n, err)
				}
				r.Close()
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// cpuTime is the user plus system time of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
