package recovery

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
	"github.com/segmentio/kafka-go/compress"
)

// Decoders chooses the decompressors behind deep iterators.
type Decoders int

const (
	// DecodersModel is the default: gzip through the off-heap inflater (the model
	// of the JVM's native zlib memory), zstd through klauspost/compress/zstd
	// NewReader with its default options (asynchronous, decoder goroutines that
	// live until Close), snappy and lz4 through kafka-go's codecs.
	DecodersModel Decoders = iota
	// DecodersKafkaGo reads every codec through kafka-go's own codecs
	// (compress.Codec.NewReader), which pool their decoders and, for zstd, decode
	// synchronously (concurrency 1).
	DecodersKafkaGo
)

var decodersNames = [...]string{"model", "kafka-go"}

// String returns the name the -decoders flag uses.
func (d Decoders) String() string {
	if d >= 0 && int(d) < len(decodersNames) {
		return decodersNames[d]
	}
	return fmt.Sprintf("decoders(%d)", int(d))
}

// ParseDecoders returns the decoder set named s (model or kafka-go).
func ParseDecoders(s string) (Decoders, error) {
	for i, name := range decodersNames {
		if s == name {
			return Decoders(i), nil
		}
	}
	return 0, fmt.Errorf("%w: unknown decoders %q (want model or kafka-go)", ErrInvalidConfig, s)
}

// DeepIterator reads the records of one compressed batch through a decompressor,
// as Kafka's ByteBufferMessageSet.deepIterator does. Whatever the decompressor
// holds (goroutines, pooled buffers, off-heap memory) is released by Close;
// reading to the end does not close it.
type DeepIterator struct {
	header  BatchHeader
	stream  byteStream
	dec     io.Closer
	read    int
	scratch []byte
	err     error
	closed  bool
}

// OpenDeepIterator starts decompressing the records section of a batch with the
// given header. The iterator keeps records and reads it as it advances (some
// decoders read ahead from other goroutines), so the caller must give it a slice
// it will not modify: Kafka's deep iterator likewise owns its message's buffer.
func OpenDeepIterator(h BatchHeader, records []byte, d Decoders) (*DeepIterator, error) {
	if h.RecordCount < 0 || h.LastOffsetDelta < 0 {
		return nil, recordError("record count %d, last offset delta %d", h.RecordCount, h.LastOffsetDelta)
	}
	it := &DeepIterator{header: h}
	stream, dec, err := openStream(h.Codec(), records, d)
	if err != nil {
		return nil, err
	}
	it.stream, it.dec = stream, dec
	return it, nil
}

// openStream starts decompressing records with the codec's decoder of the set d,
// as CompressionFactory does for a wrapper message or a batch.
func openStream(codec Codec, records []byte, d Decoders) (byteStream, io.Closer, error) {
	if err := checkDeclaredSizes(codec, records); err != nil {
		return nil, nil, err
	}
	// A *bytes.Reader, not a *bytes.Buffer: zstd decodes a small Buffer
	// synchronously, and the model wants its default, asynchronous stream decoder.
	src := bytes.NewReader(records)
	switch {
	case codec == CodecNone:
		return bufio.NewReaderSize(src, 4096), io.NopCloser(nil), nil
	case codec == CodecGzip && d == DecodersModel:
		g, err := newGzipReader(records)
		if err != nil {
			return nil, nil, err
		}
		return g, g, nil
	case codec == CodecZstd && d == DecodersModel:
		z, err := zstd.NewReader(src, zstd.WithDecoderMaxWindow(maxDeclaredBytes))
		if err != nil {
			return nil, nil, fmt.Errorf("%w: zstd: %w", ErrCorruptRecord, err)
		}
		rc := z.IOReadCloser()
		return bufio.NewReaderSize(rc, 4096), rc, nil
	default:
		c := compress.Compression(codec).Codec()
		if c == nil {
			return nil, nil, recordError("unknown compression codec %d", int(codec))
		}
		rc := c.NewReader(src)
		return bufio.NewReaderSize(rc, 4096), rc, nil
	}
}

// Next returns the next record, or io.EOF after the last one. After the number of
// records the header announces, the decompressed stream must end, which is when
// gzip and zstd check their trailing checksums.
func (it *DeepIterator) Next() (Record, error) {
	if it.closed {
		return Record{}, ErrIteratorClosed
	}
	if it.err != nil {
		return Record{}, it.err
	}
	if it.read >= int(it.header.RecordCount) {
		_, err := it.stream.ReadByte()
		switch {
		case err == nil:
			err = recordError("data after the last of %d records", it.header.RecordCount)
		case errors.Is(err, io.EOF):
			err = io.EOF
		case !errors.Is(err, ErrCorruptRecord):
			err = fmt.Errorf("%w: %s: %w", ErrCorruptRecord, it.header.Codec(), err)
		}
		it.err = err
		return Record{}, err
	}
	rec, scratch, err := readRecord(it.stream, it.header, it.scratch)
	it.scratch = scratch
	if err != nil {
		if !errors.Is(err, ErrCorruptRecord) {
			err = fmt.Errorf("%w: %s: %w", ErrCorruptRecord, it.header.Codec(), err)
		}
		it.err = err
		return Record{}, err
	}
	it.read++
	return rec, nil
}

// RecordsRead is the number of records Next has returned.
func (it *DeepIterator) RecordsRead() int { return it.read }

// Close releases the decompressor. It is idempotent.
func (it *DeepIterator) Close() error {
	if it.closed {
		return nil
	}
	it.closed = true
	it.scratch = nil
	return it.dec.Close()
}
