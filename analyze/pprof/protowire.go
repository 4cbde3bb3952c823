package pprof

import (
	"fmt"

	"github.com/leakui/leakui/internal/varint"
)

// walkMessage calls fn for every field of a protobuf message: varint and fixed
// fields with their value, length-delimited fields with their bytes (a sub-slice of
// b, not a copy). It validates lengths so that truncated or hostile input is an
// error, never a panic.
func walkMessage(b []byte, fn func(field, wire int, v uint64, msg []byte) error) error {
	for len(b) > 0 {
		key, n := varint.Uvarint(b)
		if n <= 0 {
			return fmt.Errorf("%w: bad field key", errProto)
		}
		b = b[n:]
		field, wire := int(key>>3), int(key&7)
		if field == 0 {
			return fmt.Errorf("%w: field number 0", errProto)
		}
		switch wire {
		case wireVarint:
			v, n := varint.Uvarint(b)
			if n <= 0 {
				return fmt.Errorf("%w: bad varint in field %d", errProto, field)
			}
			b = b[n:]
			if err := fn(field, wire, v, nil); err != nil {
				return err
			}
		case wireFixed64:
			if len(b) < 8 {
				return fmt.Errorf("%w: truncated fixed64 in field %d", errProto, field)
			}
			v := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
				uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
			b = b[8:]
			if err := fn(field, wire, v, nil); err != nil {
				return err
			}
		case wireBytes:
			l, n := varint.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return fmt.Errorf("%w: truncated field %d", errProto, field)
			}
			msg := b[n : n+int(l)]
			b = b[n+int(l):]
			if err := fn(field, wire, 0, msg); err != nil {
				return err
			}
		case wireFixed32:
			if len(b) < 4 {
				return fmt.Errorf("%w: truncated fixed32 in field %d", errProto, field)
			}
			v := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24
			b = b[4:]
			if err := fn(field, wire, v, nil); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%w: unsupported wire type %d in field %d", errProto, wire, field)
		}
	}
	return nil
}

// walkPacked calls fn for every varint of a packed repeated field.
func walkPacked(b []byte, fn func(uint64)) error {
	for len(b) > 0 {
		v, n := varint.Uvarint(b)
		if n <= 0 {
			return fmt.Errorf("%w: bad packed varint", errProto)
		}
		fn(v)
		b = b[n:]
	}
	return nil
}
