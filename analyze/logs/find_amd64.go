//go:build !purego

package logs

import "golang.org/x/sys/cpu"

// hasAVX2 selects the vector pair scan; without AVX2 the portable scan runs.
var hasAVX2 = cpu.X86.HasAVX2

// indexPairAVX2 is indexPairGeneric 64, then 32 bytes a step, for
// len(s)-d ≥ 32 (find_amd64.s).
//
//go:noescape
func indexPairAVX2(s []byte, c1, c2, m1, m2 byte, d int) int

// indexPair returns the smallest j with s[j]|m1 == c1 and s[j+d]|m2 == c2
// (d ≥ 1), or -1 when there is none.
func indexPair(s []byte, c1, c2, m1, m2 byte, d int) int {
	if hasAVX2 && len(s)-d >= 32 {
		return indexPairAVX2(s, c1, c2, m1, m2, d)
	}
	return indexPairGeneric(s, c1, c2, m1, m2, d)
}
