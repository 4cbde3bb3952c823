//go:build !amd64 || purego

package logs

// indexPair returns the smallest j with s[j]|m1 == c1 and s[j+d]|m2 == c2
// (d ≥ 1), or -1 when there is none: the portable scan, off amd64 or built
// with the purego tag.
func indexPair(s []byte, c1, c2, m1, m2 byte, d int) int {
	return indexPairGeneric(s, c1, c2, m1, m2, d)
}
