package recovery

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// LegacyIterator is Kafka's ByteBufferMessageSet.deepIterator over one compressed
// v0 or v1 wrapper message, in the version chosen at open:
//
//   - 0.10.0.0 (kafka/message/ByteBufferMessageSet.scala, tag 0.10.0.0, lines
//     81–164): a v1 wrapper is read eagerly when the iterator is made (relative
//     offsets need the last inner offset), and the stream is closed at its end;
//     a v0 wrapper is read lazily, one message per Next, and the stream is closed
//     only when a Next meets its end. An error while reading leaves it open.
//   - 0.10.0.1 (KAFKA-3933, "Always fully read deepIterator", c47c3b0b583): every
//     wrapper is read eagerly and the stream closed in a finally block.
//
// The stream is the decompressor of CompressionFactory over the wrapper's value;
// with DecodersModel and gzip, it holds the off-heap model of zlib's memory.
type LegacyIterator struct {
	wrapper   MessageHeader
	stream    byteStream
	dec       io.Closer
	eager     []Record // the inner messages read at open, when eager
	lazy      bool
	lastInner int64
	read      int
	scratch   []byte
	err       error
	closed    bool
}

// ErrRecoveryAborted marks what Kafka 0.10 threw out of LogSegment.recover as
// something other than a CorruptRecordException (a KafkaException around an
// IOException of a lazy v0 deep iterator, a NoSuchElementException of an empty
// wrapper, an IllegalStateException of mismatched magic): recover does not
// catch it, so the broker stops loading its logs instead of truncating.
var ErrRecoveryAborted = errors.New("recovery aborted")

// OpenLegacyIterator opens the deep iterator of a compressed v0 or v1 wrapper
// whose value (the compressed inner message set) is payload. fixed selects
// 0.10.0.1's iterator, otherwise 0.10.0.0's. The caller must not modify payload
// while the iterator lives. Errors wrap ErrCorruptRecord (an
// InvalidMessageException: recover truncates) or ErrRecoveryAborted.
func OpenLegacyIterator(wrapper MessageHeader, payload []byte, d Decoders, fixed bool) (*LegacyIterator, error) {
	if wrapper.Magic != 0 && wrapper.Magic != 1 {
		return nil, recordError("magic %d is not a message set", wrapper.Magic)
	}
	if payload == nil {
		return nil, fmt.Errorf("%w: KafkaException: Message payload is null", ErrRecoveryAborted)
	}
	stream, dec, err := openStream(wrapper.Codec(), payload, d)
	if err != nil {
		// "Failed to instantiate input stream compressed with …": an
		// InvalidMessageException, which recover catches.
		return nil, err
	}
	it := &LegacyIterator{wrapper: wrapper, stream: stream, dec: dec, lazy: wrapper.Magic == 0 && !fixed}
	if it.lazy {
		return it, nil
	}
	for {
		rec, err := it.readMessage()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if fixed {
				it.release()
			}
			// 0.10.0.0 throws before the stream is closed: it stays open.
			return it, err
		}
		it.eager = append(it.eager, rec)
	}
	it.release()
	return it, nil
}

// readMessage is readMessageFromStream: offset, size, then the message. The end
// of the decompressed stream anywhere in it is an EOFException, the end of the
// message set; a decompressor's error is an IOException.
func (it *LegacyIterator) readMessage() (Record, error) {
	var head [logOverhead]byte
	if _, err := io.ReadFull(it.stream, head[:]); err != nil {
		return Record{}, it.streamError(err)
	}
	inner := int64(binary.BigEndian.Uint64(head[:]))
	size := int32(binary.BigEndian.Uint32(head[8:]))
	if size < messageOverheadV0 || size > maxRecordBytes {
		return Record{}, recordError("Message found with corrupt size `%d` in deep iterator", size)
	}
	// A lazy iterator hands out one message at a time and reuses its buffer;
	// an eager one keeps every message, each in its own buffer, as Kafka reads
	// each into a new array.
	buf := it.scratch[:0]
	if !it.lazy {
		buf = nil
	}
	buf = append(append(buf, head[:]...), make([]byte, size)...)
	if it.lazy {
		it.scratch = buf
	}
	if _, err := io.ReadFull(it.stream, buf[logOverhead:]); err != nil {
		return Record{}, it.streamError(err)
	}
	if magic := int8(buf[offsetMessageMagic]); magic != it.wrapper.Magic {
		return Record{}, fmt.Errorf("%w: IllegalStateException: Compressed message has magic value %d but inner message has magic value %d",
			ErrRecoveryAborted, it.wrapper.Magic, magic)
	}
	it.read++
	it.lastInner = inner
	rec := Record{Offset: inner, Timestamp: it.wrapper.Timestamp}
	// The deep iterator does not check inner messages; a key or value that does
	// not fit is simply not returned.
	if m, err := parseMessage(buf); err == nil {
		rec.Key, rec.Value = m.Key, m.Value
		if it.wrapper.Magic == 1 && it.wrapper.Attributes&timestampTypeMask == 0 {
			rec.Timestamp = m.Timestamp
		}
	}
	return rec, nil
}

// streamError maps an error of the decompressed stream to what Kafka made of it.
func (it *LegacyIterator) streamError(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return io.EOF
	}
	if !errors.Is(err, ErrCorruptRecord) {
		err = fmt.Errorf("%w: %s: %w", ErrCorruptRecord, it.wrapper.Codec(), err)
	}
	if it.lazy {
		// makeNext: "case ioe: IOException => throw new KafkaException(ioe)".
		return fmt.Errorf("%w: KafkaException: %w", ErrRecoveryAborted, err)
	}
	return fmt.Errorf("Error while reading message from stream compressed with %s: %w", it.wrapper.Codec(), err)
}

// Next returns the next inner message with its absolute offset, or io.EOF after
// the last, when a lazy iterator closes its stream.
func (it *LegacyIterator) Next() (Record, error) {
	if it.err != nil {
		return Record{}, it.err
	}
	if !it.lazy {
		if it.read == 0 || len(it.eager) == 0 {
			return Record{}, io.EOF
		}
		rec := it.eager[0]
		it.eager = it.eager[1:]
		if it.wrapper.Magic > 0 {
			rec.Offset = it.wrapper.Offset + rec.Offset - it.lastInner
		}
		return rec, nil
	}
	if it.closed {
		return Record{}, ErrIteratorClosed
	}
	rec, err := it.readMessage()
	if errors.Is(err, io.EOF) {
		it.release()
	}
	if err != nil {
		it.err = err
	}
	return rec, err
}

// RecordsRead is the number of inner messages read from the stream so far.
func (it *LegacyIterator) RecordsRead() int { return it.read }

// StreamClosed reports whether the decompressor was closed, by the iterator
// itself or by Close.
func (it *LegacyIterator) StreamClosed() bool { return it.closed }

// Close closes the stream, as the ClosableIterator proposed in KAFKA-3933 would.
// It is idempotent.
func (it *LegacyIterator) Close() error { return it.release() }

func (it *LegacyIterator) release() error {
	if it.closed {
		return nil
	}
	it.closed = true
	it.scratch = nil
	return it.dec.Close()
}
