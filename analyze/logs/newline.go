package logs

import "bytes"

// logNewlinesStep is the bytes the vector newline scan looks at a step (two
// 32-byte compares), and so the most ends a step writes: it runs while a
// step's bytes are left and as many places. newline_amd64.s reads it from
// go_asm.h.
const logNewlinesStep = 64

// logNewlines appends to ends the offsets in b of the '\n' bytes at or after
// from, in order, until ends is full (len(ends) == cap(ends)) or b has no
// more; with AVX2 it may stop up to logNewlinesStep places short of full.
// more reports that b may hold a '\n' after the last one appended: when it
// is false, every one was found. With AVX2 it looks at logNewlinesStep bytes
// a step (newline_amd64.s) instead of one memchr call per line.
func logNewlines(b []byte, from int, ends []int32) (found []int32, more bool) {
	if logHasNewlinesAVX2 && len(b)-from >= logNewlinesStep && cap(ends)-len(ends) >= logNewlinesStep {
		n, scanned := logNewlinesAVX2(b[from:], ends[len(ends):cap(ends)], from)
		ends = ends[:len(ends)+n]
		from += scanned
		if len(b)-from >= logNewlinesStep { // it stopped for want of places
			return ends, true
		}
	}
	return logNewlinesGeneric(b, from, ends)
}

// logNewlinesGeneric is logNewlines with one memchr a line.
func logNewlinesGeneric(b []byte, from int, ends []int32) (found []int32, more bool) {
	for len(ends) < cap(ends) {
		i := bytes.IndexByte(b[from:], '\n')
		if i < 0 {
			return ends, false
		}
		ends = append(ends, int32(from+i))
		from += i + 1
	}
	return ends, true
}
