package varint

import (
	"encoding/binary"
	"testing"
)

// TestUvarintAgreesWithBinary checks Uvarint against encoding/binary on every
// varint length and on truncated and over-long input.
func TestUvarintAgreesWithBinary(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 300, 1 << 21, 1<<35 + 7, 1<<63 - 1, 1<<64 - 1} {
		b := binary.AppendUvarint(nil, v)
		got, n := Uvarint(b)
		if got != v || n != len(b) {
			t.Errorf("Uvarint(%x) = %d, %d; want %d, %d", b, got, n, v, len(b))
		}
		if _, n := Uvarint(b[:len(b)-1]); n != 0 {
			t.Errorf("Uvarint of %x cut by one byte: n = %d, want 0 (truncated)", b, n)
		}
	}
	long := []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}
	if _, n := Uvarint(long); n != -1 {
		t.Errorf("an 11-byte varint: n = %d, want -1", n)
	}
	if _, n := Uvarint(nil); n != 0 {
		t.Errorf("empty input: n = %d, want 0", n)
	}
}
