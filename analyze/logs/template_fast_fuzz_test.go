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
