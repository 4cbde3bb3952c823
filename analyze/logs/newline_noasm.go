//go:build !amd64 || purego

package logs

// hasNewlinesAVX2 is false without the assembly (off amd64, or built with
// the purego tag): newlines runs the generic scan.
var hasNewlinesAVX2 = false

func newlinesAVX2(s []byte, dst []int32, base int) (n, scanned int) {
	panic("logs: newlinesAVX2 without the assembly")
}
