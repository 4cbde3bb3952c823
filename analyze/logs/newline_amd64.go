//go:build !purego

package logs

import "golang.org/x/sys/cpu"

// hasNewlinesAVX2 selects the vector newline scan (AVX2, with BMI1's
// TZCNT and BLSR and POPCNT); tests turn it off to run the generic one.
var hasNewlinesAVX2 = hasAVX2 && cpu.X86.HasBMI1 && cpu.X86.HasPOPCNT

// newlinesAVX2 writes to dst the offsets (plus base) of the '\n' bytes of
// s, 64 bytes at a time while 64 are left in s and 64 places in dst; it
// returns how many it wrote and how many bytes of s it looked at.
//
//go:noescape
func newlinesAVX2(s []byte, dst []int32, base int) (n, scanned int)
