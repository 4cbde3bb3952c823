package recovery

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strconv"
)

// Message format v0 and v1 layout (big-endian), as in Kafka 0.10.0.0's
// kafka/message/Message.scala: every entry of a log segment is the log overhead
// (offset and size, MessageSet.LogOverhead) followed by one message.
//
//	offset      int64   the message's offset; for a compressed wrapper, the offset of its last inner message
//	size        int32   bytes of the message after this field
//	crc         uint32  CRC-32 (IEEE) of magic…end
//	magic       int8    0 or 1
//	attributes  int8    bits 0–2 codec, bit 3 timestamp type (v1)
//	timestamp   int64   v1 only
//	key length  int32   -1 for a null key
//	key
//	value length int32  -1 for a null value; a compressed wrapper's value is the compressed inner message set
//	value
//
// Both layouts put the size at byte 8 and the magic at byte 16, as the record
// batch v2 does, which is how a reader tells them apart.
const (
	offsetMessageCRC        = 12
	offsetMessageMagic      = 16
	offsetMessageAttributes = 17
	offsetMessageTimestamp  = 18 // v1 only
	// messageOverheadV0 is Message.MinMessageOverhead: crc, magic, attributes and
	// the two lengths of a v0 message with empty key and value.
	messageOverheadV0 = 14
	// MinLegacyEntrySize is the smallest v0 entry: the log overhead and
	// MinMessageOverhead.
	MinLegacyEntrySize = logOverhead + messageOverheadV0
	// timestampTypeMask is bit 3 of the attributes (1 = LogAppendTime).
	timestampTypeMask = 0x08
)

// MessageHeader is what a v0 or v1 entry says before its key and value.
type MessageHeader struct {
	// Offset is the entry's offset: a plain message's own, a compressed
	// wrapper's the offset of its last inner message.
	Offset int64
	// Size is the message's size after the 12-byte log overhead.
	Size int32
	// CRC is the stored CRC-32 of magic…end.
	CRC uint32
	// Magic is 0 or 1.
	Magic int8
	// Attributes holds the codec in bits 0–2.
	Attributes int8
	// Timestamp is the v1 timestamp in ms; -1 (Message.NoTimestamp) for v0.
	Timestamp int64
	// Key and Value are the key and value (the compressed inner message set of
	// a wrapper); nil when null. They point into the entry's bytes.
	Key, Value []byte
}

// Codec is the compression codec in the attributes.
func (m MessageHeader) Codec() Codec { return Codec(m.Attributes & codecMask) }

// messageCRC is Message.computeChecksum: CRC-32 over magic…end of a message
// whose entry (log overhead included) is entry.
func messageCRC(entry []byte) uint32 {
	if len(entry) < offsetMessageMagic {
		return 0
	}
	return crc32.ChecksumIEEE(entry[offsetMessageMagic:])
}

// parseMessage decodes a whole v0 or v1 entry; it checks only that the fields fit.
func parseMessage(entry []byte) (MessageHeader, error) {
	be := binary.BigEndian
	if len(entry) < MinLegacyEntrySize {
		return MessageHeader{}, fmt.Errorf("message of %d bytes is shorter than the %d-byte minimum", len(entry), MinLegacyEntrySize)
	}
	m := MessageHeader{
		Offset:     int64(be.Uint64(entry)),
		Size:       int32(be.Uint32(entry[offsetBatchLength:])),
		CRC:        be.Uint32(entry[offsetMessageCRC:]),
		Magic:      int8(entry[offsetMessageMagic]),
		Attributes: int8(entry[offsetMessageAttributes]),
		Timestamp:  -1,
	}
	rest := entry[offsetMessageTimestamp:]
	switch m.Magic {
	case 0:
	case 1:
		if len(rest) < 8+8 {
			return m, fmt.Errorf("v1 message of %d bytes has no room for its timestamp", len(entry))
		}
		m.Timestamp = int64(be.Uint64(rest))
		rest = rest[8:]
	default:
		return m, errors.New("Invalid magic found in record: " + strconv.Itoa(int(m.Magic)))
	}
	field := func(name string) ([]byte, error) {
		if len(rest) < 4 {
			return nil, fmt.Errorf("message ends inside its %s length", name)
		}
		n := int32(be.Uint32(rest))
		rest = rest[4:]
		if n == -1 {
			return nil, nil
		}
		if n < 0 || int(n) > len(rest) {
			return nil, fmt.Errorf("%s length %d with %d bytes left in the message", name, n, len(rest))
		}
		v := rest[:n:n]
		rest = rest[n:]
		return v, nil
	}
	var err error
	if m.Key, err = field("key"); err != nil {
		return m, err
	}
	if m.Value, err = field("value"); err != nil {
		return m, err
	}
	if len(rest) != 0 {
		return m, fmt.Errorf("%d bytes after the message's value", len(rest))
	}
	return m, nil
}

// appendMessage appends one entry (log overhead and message) of the given magic,
// with its CRC, to dst.
func appendMessage(dst []byte, offset int64, magic, attributes int8, timestamp int64, key, value []byte) []byte {
	be := binary.BigEndian
	start := len(dst)
	dst = be.AppendUint64(dst, uint64(offset))
	dst = be.AppendUint32(dst, 0) // size, below
	dst = be.AppendUint32(dst, 0) // crc, below
	dst = append(dst, byte(magic), byte(attributes))
	if magic > 0 {
		dst = be.AppendUint64(dst, uint64(timestamp))
	}
	for _, f := range [][]byte{key, value} {
		if f == nil {
			dst = be.AppendUint32(dst, 0xffffffff)
			continue
		}
		dst = be.AppendUint32(dst, uint32(len(f)))
		dst = append(dst, f...)
	}
	entry := dst[start:]
	be.PutUint32(entry[offsetBatchLength:], uint32(len(entry)-logOverhead))
	be.PutUint32(entry[offsetMessageCRC:], messageCRC(entry))
	return dst
}
