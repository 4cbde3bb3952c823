//go:build !amd64

package logs

// logHasSkelAVX2 is false off amd64: logSkelEqual runs the generic compare.
var logHasSkelAVX2 = false

func logSkelEqualAVX2(line, skel []byte) bool {
	panic("logs: logSkelEqualAVX2 without AVX2")
}

func logSkelBatch(text []byte, ends []int32, from int, slots *logSkelEntry, out []int16) {
	panic("logs: logSkelBatch without AVX2")
}
