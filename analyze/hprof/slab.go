package hprof

// slabChunk is how many values one chunk of a slab holds.
const slabChunk = 1 << 20

// slab is an append-only array in fixed chunks, so that growing it never copies
// (and never holds two copies of) what it already has.
type slab[T any] struct {
	chunks [][]T
	n      int
}

func (s *slab[T]) add(v T) {
	if s.n%slabChunk == 0 {
		// The first chunk starts small (a small dump stays small) and doubles up to
		// slabChunk; the others are allocated whole.
		size := slabChunk
		if s.n == 0 {
			size = 1024
		}
		s.chunks = append(s.chunks, make([]T, 0, size))
	}
	c := &s.chunks[len(s.chunks)-1]
	if len(*c) == cap(*c) {
		grown := make([]T, len(*c), min(2*cap(*c), slabChunk))
		copy(grown, *c)
		*c = grown
	}
	*c = append(*c, v)
	s.n++
}

func (s *slab[T]) len() int { return s.n }

// flat returns the values in one slice of exactly their length and empties the slab,
// letting each chunk go as soon as it is copied.
func (s *slab[T]) flat() []T {
	out := make([]T, s.n)
	at := 0
	for i, c := range s.chunks {
		at += copy(out[at:], c)
		s.chunks[i] = nil
	}
	s.chunks, s.n = nil, 0
	return out
}
