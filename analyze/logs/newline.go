package logs

import "bytes"

// logNewlines appends to ends the offsets in b of the '\n' bytes at or after
// from, in order, until ends is full (len(ends) == cap(ends)) or b has no
// more: fewer than cap(ends) means every one was found. With AVX2 it looks at
// 32 bytes a compare (newline_amd64.s) instead of one memchr call per line.
func logNewlines(b []byte, from int, ends []int32) []int32 {
	if logHasNewlinesAVX2 && len(b)-from >= 32 && cap(ends)-len(ends) >= 32 {
		n, scanned := logNewlinesAVX2(b[from:], ends[len(ends):cap(ends)], from)
		ends = ends[:len(ends)+n]
		from += scanned
	}
	return logNewlinesGeneric(b, from, ends)
}

// logNewlinesGeneric is logNewlines with one memchr a line.
func logNewlinesGeneric(b []byte, from int, ends []int32) []int32 {
	for len(ends) < cap(ends) {
		i := bytes.IndexByte(b[from:], '\n')
		if i < 0 {
			break
		}
		ends = append(ends, int32(from+i))
		from += i + 1
	}
	return ends
}
