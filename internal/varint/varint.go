// Package varint decodes the base-128 varints of the protobuf wire format, for
// the profile.proto decoder (analyze/pprof) and the kind sniffer (analyze), which
// must not import each other.
package varint

// Uvarint decodes the varint at the start of b and returns it with the number of
// bytes it took; n ≤ 0 means b is truncated (0) or the varint runs past ten bytes
// (-1). A one-byte varint takes the fast path, the common case in profiles.
func Uvarint(b []byte) (v uint64, n int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	var shift uint
	for i, c := range b {
		if i == 10 {
			return 0, -1
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, i + 1
		}
		shift += 7
	}
	return 0, 0
}
