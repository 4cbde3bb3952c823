//go:build !amd64 || purego

package logs

// logIndexPair returns the smallest j with s[j]|m1 == c1 and s[j+d]|m2 == c2
// (d ≥ 1), or -1 when there is none: the portable scan, off amd64 or built
// with the purego tag.
func logIndexPair(s []byte, c1, c2, m1, m2 byte, d int) int {
	return logIndexPairGeneric(s, c1, c2, m1, m2, d)
}
