package logs

// logHasNewlinesAVX2 selects the vector newline scan; tests turn it off to
// run the generic one.
var logHasNewlinesAVX2 = logHasAVX2

// logNewlinesAVX2 writes to dst the offsets (plus base) of the '\n' bytes of
// s, 32 bytes at a time while 32 are left in s and 32 places in dst; it
// returns how many it wrote and how many bytes of s it looked at.
//
//go:noescape
func logNewlinesAVX2(s []byte, dst []int32, base int) (n, scanned int)
