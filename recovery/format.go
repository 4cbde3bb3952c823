package recovery

import (
	"fmt"
	"strings"
)

// Format is the on-disk message format of the segments WriteLog writes: the
// magic byte of every entry.
type Format int8

// The message formats. V0 and V1 are the "message sets" of Kafka 0.8 to 0.10
// (kafka/message/Message.scala): a compressed batch is one wrapper message whose
// value holds the compressed inner messages. V2 is the record batch of Kafka 0.11
// and later (DefaultRecordBatch).
const (
	// FormatV0 is magic 0: no timestamps; inner messages of a compressed wrapper
	// carry absolute offsets.
	FormatV0 Format = 0
	// FormatV1 is magic 1 (Kafka 0.10.0, KIP-31/32): an 8-byte timestamp after the
	// attributes; inner messages carry relative offsets 0…n-1 and the wrapper the
	// absolute offset of the last one.
	FormatV1 Format = 1
	// FormatV2 is the record batch v2 (Kafka 0.11, KIP-98).
	FormatV2 Format = 2
)

// Formats lists every format, oldest first.
var Formats = []Format{FormatV0, FormatV1, FormatV2}

var formatNames = [...]string{"v0", "v1", "v2"}

// String returns the format's name as the -format flag spells it.
func (f Format) String() string {
	if f >= 0 && int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("format(%d)", int(f))
}

// Legacy reports whether the format is one of the message sets v0 and v1.
func (f Format) Legacy() bool { return f == FormatV0 || f == FormatV1 }

// ParseFormat returns the format named s (v0, v1 or v2).
func ParseFormat(s string) (Format, error) {
	for i, name := range formatNames {
		if strings.EqualFold(s, name) {
			return Format(i), nil
		}
	}
	return 0, fmt.Errorf("%w: unknown message format %q (want one of %s)", ErrInvalidConfig, s, strings.Join(formatNames[:], ", "))
}

// supports reports whether Kafka ever wrote batches of codec c in format f: zstd
// came with Kafka 2.1 and only in record batches v2 (KIP-110).
func (f Format) supports(c Codec) bool { return c != CodecZstd || f == FormatV2 }
