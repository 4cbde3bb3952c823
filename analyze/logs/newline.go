package logs

import "bytes"

// newlinesStep is the bytes the vector newline scan looks at a step (two
// 32-byte compares), and so the most ends a step writes: it runs while a
// step's bytes are left and as many places. newline_amd64.s reads it from
// go_asm.h.
const newlinesStep = 64

// newlines appends to ends the offsets in b of the '\n' bytes at or after
// from, in order, until ends is full (len(ends) == cap(ends)) or b has no
// more; with AVX2 it may stop up to newlinesStep places short of full.
// more reports that b may hold a '\n' after the last one appended: when it
// is false, every one was found. With AVX2 it looks at newlinesStep bytes
// a step (newline_amd64.s) instead of one memchr call per line.
func newlines(b []byte, from int, ends []int32) (found []int32, more bool) {
	if hasNewlinesAVX2 && len(b)-from >= newlinesStep && cap(ends)-len(ends) >= newlinesStep {
		n, scanned := newlinesAVX2(b[from:], ends[len(ends):cap(ends)], from)
		ends = ends[:len(ends)+n]
		from += scanned
		if len(b)-from >= newlinesStep { // it stopped for want of places
			return ends, true
		}
	}
	return newlinesGeneric(b, from, ends)
}

// newlinesGeneric is newlines with one memchr a line.
func newlinesGeneric(b []byte, from int, ends []int32) (found []int32, more bool) {
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
