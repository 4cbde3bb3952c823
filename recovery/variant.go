package recovery

import (
	"fmt"
	"strings"
)

// Variant is how recovery learns the first offset of a compressed batch: the leaky
// code of Kafka 0.10.0.0 or one of its later fixes.
type Variant int

const (
	// VariantLeaky is Kafka 0.10.0.0: where an index entry is due it opens a
	// decompressing deep iterator for the first inner offset; over a v0 wrapper
	// it reads one message and never closes it, over a v1 wrapper it reads every
	// message and closes it at the end.
	VariantLeaky Variant = iota
	// VariantClose reads the first inner record like VariantLeaky, then closes the
	// iterator (the ClosableIterator patches proposed in KAFKA-3933).
	VariantClose
	// VariantDrain reads every inner record through the iterator, then closes it
	// (what shipped in Kafka 0.10.0.1).
	VariantDrain
	// VariantHeader is Kafka from 2.0.0 on: it indexes an entry's last offset, from
	// its header, and decompresses nothing (LogSegment.scala:353 at tag 2.0.0; 0.11
	// to 1.1 indexed batch.baseOffset, which over a legacy compressed wrapper still
	// reads its first inner message).
	VariantHeader
)

// Variants lists every variant, leaky first.
var Variants = []Variant{VariantLeaky, VariantClose, VariantDrain, VariantHeader}

var variantNames = [...]string{"leaky", "close", "drain", "header"}

// String returns the variant's name as the -variant flag spells it.
func (v Variant) String() string {
	if v >= 0 && int(v) < len(variantNames) {
		return variantNames[v]
	}
	return fmt.Sprintf("variant(%d)", int(v))
}

// ParseVariant returns the variant named s (leaky, close, drain or header).
func ParseVariant(s string) (Variant, error) {
	for i, name := range variantNames {
		if strings.EqualFold(s, name) {
			return Variant(i), nil
		}
	}
	return 0, fmt.Errorf("%w %q (want one of %s)", ErrUnknownVariant, s, strings.Join(variantNames[:], ", "))
}
