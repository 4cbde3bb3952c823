//go:build !amd64

package logs

// logHasNewlinesAVX2 is false off amd64: logNewlines runs the generic scan.
var logHasNewlinesAVX2 = false

func logNewlinesAVX2(s []byte, dst []int32, base int) (n, scanned int) {
	panic("logs: logNewlinesAVX2 without AVX2")
}
