package logs

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"testing"
)

func getLE(b []byte) uint64    { return binary.LittleEndian.Uint64(b) }
func putLE(b []byte, x uint64) { binary.LittleEndian.PutUint64(b, x) }

// FuzzTemplateSkeleton holds the skeleton cache to the masker (see
// checkSkeletonCache) on the lines of random inputs, each line followed by
// itself with its digits changed at random (the same skeleton).
func FuzzTemplateSkeleton(f *testing.F) {
	f.Add([]byte("a 0x1f b 2\na 1x1f b 2\nI0102 15:04:05 x\n2023-06-21 00:00:01.234 [pool-1-thread-2] o.a.s.c.RunLoop [DEBUG] Processed 1000 envelopes in 12 ms\r\n"))
	f.Add([]byte("1.2.3.4 x 123e4567-e89b-12d3-a456-426614174000 2015-07-29 abcdef12\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		rng := rand.New(rand.NewSource(int64(len(in))))
		var lines [][]byte
		for _, l := range bytes.Split(in, []byte{'\n'}) {
			lines = append(lines, l, randomDigits(rng, l), randomDigits(rng, l))
		}
		checkSkeletonCache(t, lines)
	})
}

// FuzzSkeletonEqual holds skelEqual (the AVX2 compare where there is one)
// and skelEqualGeneric to a byte at a time, on a line and its skeleton
// with one byte of either changed.
func FuzzSkeletonEqual(f *testing.F) {
	f.Add([]byte("2023-06-21 00:00:01.234 [pool-1-thread-2] o.a.s.c.RunLoop [DEBUG] Processed 1000 envelopes"), uint16(5), byte('x'), false)
	f.Add([]byte("0123456789 abcdefghij 0123456789 \xff\x80/:"), uint16(3), byte('0'), true)
	f.Fuzz(func(t *testing.T, line []byte, at uint16, c byte, inSkel bool) {
		if len(line) < 8 {
			return
		}
		if inSkel && c >= '1' && c <= '9' {
			return // a skeleton holds no other digit than '0'
		}
		skel := skeleton(nil, line)
		line = bytes.Clone(line)
		if inSkel {
			skel[int(at)%len(skel)] = c
		} else {
			line[int(at)%len(line)] = c
		}
		want := true
		for i, b := range line {
			if b >= '0' && b <= '9' {
				b = '0'
			}
			want = want && b == skel[i]
		}
		if got := skelEqual(line, skel); got != want {
			t.Fatalf("skelEqual(%q, %q) = %v, want %v", line, skel, got, want)
		}
		if got := skelEqualGeneric(line, skel); got != want {
			t.Fatalf("skelEqualGeneric(%q, %q) = %v, want %v", line, skel, got, want)
		}
	})
}
