package hprof

import "unsafe"

// slabChunk is how many values one chunk of a slab holds.
const slabChunk = 1 << 20

// slab is an append-only array in fixed chunks, so that growing it never copies
// (and never holds two copies of) what it already has. With a meter, it charges
// every chunk before it allocates it.
type slab[T any] struct {
	chunks [][]T
	n      int
	meter  *meter
	what   string
}

func (s *slab[T]) add(v T) error {
	if s.n%slabChunk == 0 {
		// The first chunk starts small (a small dump stays small) and doubles up to
		// slabChunk; the others are allocated whole.
		size := slabChunk
		if s.n == 0 {
			size = 1024
		}
		if err := s.charge(size); err != nil {
			return err
		}
		s.chunks = append(s.chunks, make([]T, 0, size))
	}
	c := &s.chunks[len(s.chunks)-1]
	if len(*c) == cap(*c) {
		size := min(2*cap(*c), slabChunk)
		if err := s.charge(size); err != nil {
			return err
		}
		grown := make([]T, len(*c), size)
		copy(grown, *c)
		s.uncharge(cap(*c))
		*c = grown
	}
	*c = append(*c, v)
	s.n++
	return nil
}

func (s *slab[T]) len() int { return s.n }

// bytes is the size of the slab's chunks.
func (s *slab[T]) bytes() int64 {
	var v T
	var n int64
	for _, c := range s.chunks {
		n += int64(cap(c))
	}
	return n * int64(unsafe.Sizeof(v))
}

func (s *slab[T]) charge(values int) error {
	if s.meter == nil {
		return nil
	}
	var v T
	return s.meter.charge(int64(values)*int64(unsafe.Sizeof(v)), s.what)
}

func (s *slab[T]) uncharge(values int) {
	if s.meter != nil {
		var v T
		s.meter.uncharge(int64(values) * int64(unsafe.Sizeof(v)))
	}
}

// flat returns the values in one slice of exactly their length and empties the slab,
// letting each chunk go as soon as it is copied.
func (s *slab[T]) flat() ([]T, error) {
	if err := s.charge(s.n); err != nil {
		return nil, err
	}
	out := make([]T, s.n)
	at := 0
	for i, c := range s.chunks {
		at += copy(out[at:], c)
		s.uncharge(cap(c))
		s.chunks[i] = nil
	}
	s.chunks, s.n = nil, 0
	return out, nil
}
