//go:build !amd64 || purego

package logs

// logHasNewlinesAVX2 is false without the assembly (off amd64, or built with
// the purego tag): logNewlines runs the generic scan.
var logHasNewlinesAVX2 = false

func logNewlinesAVX2(s []byte, dst []int32, base int) (n, scanned int) {
	panic("logs: logNewlinesAVX2 without the assembly")
}
