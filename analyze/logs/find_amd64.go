//go:build !purego

package logs

import "golang.org/x/sys/cpu"

// logHasAVX2 selects the vector pair scan; without AVX2 the portable scan runs.
var logHasAVX2 = cpu.X86.HasAVX2

// logIndexPairAVX2 is logIndexPairGeneric 64, then 32 bytes a step, for
// len(s)-d ≥ 32 (find_amd64.s).
//
//go:noescape
func logIndexPairAVX2(s []byte, c1, c2, m1, m2 byte, d int) int

// logIndexPair returns the smallest j with s[j]|m1 == c1 and s[j+d]|m2 == c2
// (d ≥ 1), or -1 when there is none.
func logIndexPair(s []byte, c1, c2, m1, m2 byte, d int) int {
	if logHasAVX2 && len(s)-d >= 32 {
		return logIndexPairAVX2(s, c1, c2, m1, m2, d)
	}
	return logIndexPairGeneric(s, c1, c2, m1, m2, d)
}
