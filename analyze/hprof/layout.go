package hprof

// Layout is how the JVM lays out objects, which the dump does not record: the shallow
// size of an object is its header, its fields (references at Ref bytes each) and
// the padding to Align bytes; an array's elements start after ArrayHeader bytes.
type Layout struct {
	Header      int64 `json:"header"`
	ArrayHeader int64 `json:"array_header"`
	Ref         int64 `json:"ref"`
	Align       int64 `json:"align"`
}

// Layouts of 64-bit HotSpot with compressed oops and class pointers (the default
// for heaps below 32 GiB), 64-bit HotSpot without them, and 32-bit HotSpot.
var (
	LayoutCompressed   = Layout{Header: 12, ArrayHeader: 16, Ref: 4, Align: 8}
	LayoutUncompressed = Layout{Header: 16, ArrayHeader: 24, Ref: 8, Align: 8}
	Layout32           = Layout{Header: 8, ArrayHeader: 12, Ref: 4, Align: 8}
)

// defaultLayout is the layout assumed for a dump of idSize-byte identifiers.
func defaultLayout(idSize int) Layout {
	if idSize == 4 {
		return Layout32
	}
	return LayoutCompressed
}

func (l Layout) align(n int64) int64 {
	return (n + l.Align - 1) / l.Align * l.Align
}

// InstanceSize is the shallow size of an instance whose fields (its class's and
// its superclasses') take fieldBytes bytes with references counted at Ref bytes.
func (l Layout) InstanceSize(fieldBytes int64) int64 {
	return l.align(l.Header + fieldBytes)
}

// ArraySize is the shallow size of an array of n elements of elemSize bytes.
func (l Layout) ArraySize(n, elemSize int64) int64 {
	return l.align(l.ArrayHeader + n*elemSize)
}
