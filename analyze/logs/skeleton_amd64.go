package logs

// logHasSkelAVX2 selects the vector skeleton compare; tests turn it off to
// run the generic one.
var logHasSkelAVX2 = logHasAVX2

// logSkelEqualAVX2 is logSkelEqualGeneric for lines of at least 32 bytes,
// 32 bytes a compare (skeleton_amd64.s).
//
//go:noescape
func logSkelEqualAVX2(line, skel []byte) bool
