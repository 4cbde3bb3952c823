//go:build !purego

package logs

// logHasSkelAVX2 selects the vector skeleton compare; tests turn it off to
// run the generic one.
var logHasSkelAVX2 = logHasAVX2

// logSkelEqualAVX2 is logSkelEqualGeneric for lines of at least 32 bytes,
// 32 bytes a compare (skeleton_amd64.s).
//
//go:noescape
func logSkelEqualAVX2(line, skel []byte) bool

// logSkelBatch looks up the lines of text from from to ends[0], then to
// ends[1], … in slots as lookup does, without counting, and writes each one's
// slot or -1 to out (skeleton_amd64.s); lines shorter than logSkelChunk
// bytes get -1. It is logSkelBatchGeneric with AVX2.
//
//go:noescape
func logSkelBatch(text []byte, ends []int32, from int, slots *logSkelSlots, out []int16)
