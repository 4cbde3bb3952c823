//go:build !purego

package logs

// hasSkelAVX2 selects the vector skeleton compare; tests turn it off to
// run the generic one.
var hasSkelAVX2 = hasAVX2

// skelEqualAVX2 is skelEqualGeneric for lines of at least 32 bytes,
// 32 bytes a compare (skeleton_amd64.s).
//
//go:noescape
func skelEqualAVX2(line, skel []byte) bool

// skelBatch looks up the lines of text from from to ends[0], then to
// ends[1], … in slots as lookup does, without counting, and writes each one's
// slot or -1 to out (skeleton_amd64.s); lines shorter than skelChunk
// bytes get -1. It is skelBatchGeneric with AVX2.
//
//go:noescape
func skelBatch(text []byte, ends []int32, from int, slots *skelSlots, out []int16)
