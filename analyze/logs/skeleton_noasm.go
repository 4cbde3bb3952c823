//go:build !amd64 || purego

package logs

// logHasSkelAVX2 is false without the assembly (off amd64, or built with the
// purego tag): logSkelEqual runs the generic compare, probeBatch
// logSkelBatchGeneric, and the overview looks lines up one at a time.
var logHasSkelAVX2 = false

func logSkelEqualAVX2(line, skel []byte) bool {
	panic("logs: logSkelEqualAVX2 without the assembly")
}

func logSkelBatch(text []byte, ends []int32, from int, slots *logSkelSlots, out []int16) {
	panic("logs: logSkelBatch without the assembly")
}
