package recovery

import (
	"fmt"
	"strings"
)

// Codec is the compression codec of a record batch: bits 0–2 of its attributes.
type Codec int8

// The codecs of record batch v2, with their attribute values.
const (
	CodecNone   Codec = 0
	CodecGzip   Codec = 1
	CodecSnappy Codec = 2
	CodecLz4    Codec = 3
	CodecZstd   Codec = 4
)

// Codecs lists every codec, in attribute order.
var Codecs = []Codec{CodecNone, CodecGzip, CodecSnappy, CodecLz4, CodecZstd}

var codecNames = [...]string{"none", "gzip", "snappy", "lz4", "zstd"}

// String returns the codec's name as the -codec flag spells it.
func (c Codec) String() string {
	if c >= 0 && int(c) < len(codecNames) {
		return codecNames[c]
	}
	return fmt.Sprintf("codec(%d)", int8(c))
}

// Compressed reports whether batches of this codec need a deep iterator to be read.
func (c Codec) Compressed() bool { return c != CodecNone }

// ParseCodec returns the codec named s (none, gzip, snappy, lz4 or zstd).
func ParseCodec(s string) (Codec, error) {
	for i, name := range codecNames {
		if strings.EqualFold(s, name) {
			return Codec(i), nil
		}
	}
	return 0, fmt.Errorf("%w %q (want one of %s)", ErrUnknownCodec, s, strings.Join(codecNames[:], ", "))
}
