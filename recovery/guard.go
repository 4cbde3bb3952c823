package recovery

import (
	"bytes"
	"encoding/binary"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
)

// maxDeclaredBytes bounds the sizes a compressed batch may declare up front (a
// zstd window, a snappy block's decoded length). Decoders allocate them before
// reading the data, so without a bound one corrupt byte can cost gigabytes.
const maxDeclaredBytes = 16 << 20

// xerialMagic starts the framing kafka-go and snappy-java write around snappy
// blocks: magic, version and compatible version, then [size][block] chunks.
var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

const xerialHeaderSize = 16

// checkDeclaredSizes rejects a records section whose headers declare sizes
// beyond maxDeclaredBytes, before a decoder allocates them.
func checkDeclaredSizes(codec Codec, records []byte) error {
	switch codec {
	case CodecZstd:
		var h zstd.Header
		if err := h.Decode(records); err != nil {
			return recordError("zstd frame header: %v", err)
		}
		if h.WindowSize > maxDeclaredBytes {
			return recordError("zstd frame declares a %d-byte window (limit %d)", h.WindowSize, maxDeclaredBytes)
		}
	case CodecSnappy:
		if !bytes.HasPrefix(records, xerialMagic) {
			return checkSnappyBlock(records)
		}
		if len(records) < xerialHeaderSize {
			return recordError("snappy xerial header truncated")
		}
		for rest := records[xerialHeaderSize:]; len(rest) > 0; {
			if len(rest) < 4 {
				return recordError("snappy xerial chunk size truncated")
			}
			size := binary.BigEndian.Uint32(rest)
			if uint64(size) > uint64(len(rest)-4) {
				return recordError("snappy xerial chunk of %d bytes with %d left", size, len(rest)-4)
			}
			if err := checkSnappyBlock(rest[4 : 4+size]); err != nil {
				return err
			}
			rest = rest[4+size:]
		}
	}
	return nil
}

func checkSnappyBlock(block []byte) error {
	n, err := snappy.DecodedLen(block)
	if err != nil {
		return recordError("snappy block: %v", err)
	}
	if n > maxDeclaredBytes {
		return recordError("snappy block declares %d decoded bytes (limit %d)", n, maxDeclaredBytes)
	}
	return nil
}
