//go:build !amd64 || purego

package logs

// hasSkelAVX2 is false without the assembly (off amd64, or built with the
// purego tag): skelEqual runs the generic compare, probeBatch
// skelBatchGeneric, and the overview looks lines up one at a time.
var hasSkelAVX2 = false

func skelEqualAVX2(line, skel []byte) bool {
	panic("logs: skelEqualAVX2 without the assembly")
}

func skelBatch(text []byte, ends []int32, from int, slots *skelSlots, out []int16) {
	panic("logs: skelBatch without the assembly")
}
