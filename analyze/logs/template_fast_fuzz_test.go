package logs

import (
	"bytes"
	"testing"
)

// FuzzTemplateFastPath holds the fast path to the masker (see checkFastPath)
// on the lines of random inputs: each input's lines, then each line with its
// digits changed, so that templates repeat with other fields.
func FuzzTemplateFastPath(f *testing.F) {
	f.Add([]byte(bytes.Join(func() [][]byte {
		var b [][]byte
		for _, s := range templateSeeds {
			b = append(b, []byte(s))
		}
		return b
	}(), []byte{'\n'})))
	f.Add([]byte("a 1 b\na 22 b\na x1 b\na 1.2.3.4 b\na 0x1f b\n1 INFO x\nINFO 1 x\nI0102 1 x\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		lines := bytes.Split(in, []byte{'\n'})
		for _, l := range lines[:len(lines):len(lines)] {
			lines = append(lines, bytes.Map(func(r rune) rune {
				if r >= '0' && r <= '8' {
					return r + 1
				}
				return r
			}, l))
		}
		checkFastPath(t, lines)
	})
}

// FuzzTemplateFastPathTails holds the fast path to the masker (see
// checkFastPath) where the tails of template_fast.go answer: each line of a
// random input again and again, with the digits of its head changed (so the
// walk resumes elsewhere and a tail answers the rest), of its end changed (a
// field of the tail another word), with a CR added, and as it was.
func FuzzTemplateFastPathTails(f *testing.F) {
	f.Add([]byte("2023-06-21 00:00:01.234 [pool-1-thread-2] o.a.s.c.RunLoop [DEBUG] Processed 1000 envelopes in 12 ms\na 1 b 2 c\nx1 INFO y 22 z\n"))
	f.Add([]byte("1 a 1\n2 a 1\n1 a 1 \n1 a x1\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		bump := func(l []byte, from, to int) []byte {
			l = bytes.Clone(l)
			for i := from; i < to; i++ {
				if l[i] >= '0' && l[i] <= '8' {
					l[i]++
				}
			}
			return l
		}
		var lines [][]byte
		for _, l := range bytes.Split(in, []byte{'\n'}) {
			half := len(l) / 2
			lines = append(lines, l, bump(l, 0, half), l, bump(l, 0, half/2), bump(l, half, len(l)),
				append(bytes.Clone(l), '\r'), bump(l, 0, len(l)), l)
		}
		checkFastPath(t, lines)
	})
}
