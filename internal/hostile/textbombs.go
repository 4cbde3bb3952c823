package hostile

import (
	"bytes"
	"compress/gzip"
	"fmt"
)

// Valid text dumps that are modest on the wire and large in memory: every
// goroutine or histogram row is a few dozen bytes of text and a struct of
// a hundred or more once parsed, so only a parser that charges what it keeps
// refuses them before it holds gigabytes.

// GoroutineBomb is a gzipped debug=2 goroutine dump of n tiny goroutines, each in
// a function with a distinct name of about 40 bytes: about 100 bytes of text a
// goroutine, over a kilobyte each once parsed and grouped.
func GoroutineBomb(n int) []byte {
	return gzipText(func(b *bytes.Buffer, i int) {
		fmt.Fprintf(b, "goroutine %d [chan receive]:\nmain.handler%09d_with_a_long_name()\n\t/a.go:1 +0x1\n\n", i+1, i)
	}, n)
}

// HistogramBomb is a gzipped class histogram (`jmap -histo` layout) of n rows of
// short distinct class names: about 40 bytes of text a row, a Class of some 70
// bytes and its name once parsed.
func HistogramBomb(n int) []byte {
	return gzipText(func(b *bytes.Buffer, i int) {
		if i == 0 {
			b.WriteString(" num     #instances         #bytes  class name\n----------------------------------------------\n")
		}
		fmt.Fprintf(b, "%6d: %14d %14d  C%d\n", i+1, n-i, 16*(n-i), i)
	}, n)
}

// gzipText writes n records through gzip at its fastest level.
func gzipText(record func(*bytes.Buffer, int), n int) []byte {
	var out, chunk bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, gzip.BestSpeed)
	for i := range n {
		record(&chunk, i)
		if chunk.Len() >= 1<<20 {
			zw.Write(chunk.Bytes())
			chunk.Reset()
		}
	}
	zw.Write(chunk.Bytes())
	zw.Close()
	return out.Bytes()
}
