package logs

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// checkSkelBatch fills a skeleton cache with lines as the overview does
// (lookup, then keep on a miss), then looks up the block of the lines joined
// by '\n', with the byte at change (if inside) set to c, in one probeBatch
// (the assembly where there is AVX2): its answers must be those of its Go
// twin skelBatchGeneric, and each must be probe's for lines of
// skelChunk to skelMaxLine bytes, -1 for the others.
func checkSkelBatch(t *testing.T, lines [][]byte, change int, c byte) {
	var cache skelCache
	for _, l := range lines {
		if e, hash := cache.lookup(l); e == nil {
			cache.keep(l, hash, nil, LevelNone)
		}
	}
	block := bytes.Join(lines, []byte{'\n'})
	if change >= 0 && change < len(block) && c != '\n' {
		block[change] = c
	}
	var ends []int32
	for i, b := range block {
		if b == '\n' {
			ends = append(ends, int32(i))
		}
	}
	answers, asOf := cache.probeBatch(block, ends, 0)
	generic := make([]int16, len(ends))
	skelBatchGeneric(block, ends, 0, &cache.slots, generic)
	from := 0
	for k, le := range ends {
		text := block[from:le]
		if answers[k] != generic[k] {
			t.Fatalf("line %d (%q): probeBatch says slot %d, skelBatchGeneric %d", k, text, answers[k], generic[k])
		}
		want := -1
		if len(text) >= skelChunk && len(text) <= skelMaxLine {
			want = cache.probe(text, skelHash(text))
		}
		if int(answers[k]) != want {
			t.Fatalf("line %d (%q): probeBatch says slot %d, probe %d", k, text, answers[k], want)
		}
		if want >= 0 && cache.hit(answers[k], asOf) != &cache.slots[want] {
			t.Fatalf("line %d: hit(%d) is not slot %d", k, answers[k], want)
		}
		from = int(le) + 1
	}
}

// FuzzSkelBatch holds probeBatch (skeleton_amd64.s where there is AVX2) to
// skelBatchGeneric and to probe on the lines of random inputs, each
// followed by itself with other digits, one byte of the block changed so
// that some lines differ from their skeleton late.
func FuzzSkelBatch(f *testing.F) {
	f.Add([]byte("2023-06-21 00:00:01.234 [pool-1-thread-2] o.a.s.c.RunLoop [DEBUG] Processed 1000 envelopes in 12 ms\nshort 1\n"), uint16(90), byte('x'))
	f.Add([]byte(fmt.Sprintf("%0512d\n%0513d\n%032d\n%031d\n", 1, 2, 3, 4)), uint16(700), byte('7'))
	f.Add([]byte("0123456789 abcdefghij klmnopqrstu vwxyz!\n"), uint16(38), byte('Q')) // only the last 32 bytes differ
	f.Fuzz(func(t *testing.T, in []byte, change uint16, c byte) {
		rng := rand.New(rand.NewSource(int64(len(in))))
		var lines [][]byte
		for _, l := range bytes.Split(in, []byte{'\n'}) {
			lines = append(lines, l, randomDigits(rng, l), randomDigits(rng, l))
		}
		lines = append(lines, nil) // the block ends with a '\n'
		checkSkelBatch(t, lines, int(change), c)
	})
}

// TestSkelBatchStaleAfterKeep: once keep writes a slot, an answer about it
// from an earlier probeBatch is refused.
func TestSkelBatchStaleAfterKeep(t *testing.T) {
	var cache skelCache
	line := []byte("2023-06-21 00:00:01.234 [pool-1-thread-2] o.a.s.c.RunLoop [DEBUG] Processed 1000 envelopes")
	_, hash := cache.lookup(line)
	cache.keep(line, hash, nil, LevelInfo)
	block := append(bytes.Clone(line), '\n')
	answers, asOf := cache.probeBatch(block, []int32{int32(len(line))}, 0)
	if answers[0] < 0 {
		t.Fatalf("the kept line is not found")
	}
	// Other lines of the same bucket until one takes the slot.
	bucket := hash >> (64 - skelBucketBits)
	for i := 0; cache.slots[answers[0]].hash == hash; i++ {
		other := []byte(strings.Repeat(letters(i)+" ", 12)) // its middle changes with i
		if skelHash(other)>>(64-skelBucketBits) == bucket {
			cache.keep(other, skelHash(other), nil, LevelWarn)
		}
	}
	if e := cache.hit(answers[0], asOf); e != nil {
		t.Fatalf("hit took slot %d after it was written: %q", answers[0], e.skel)
	}
}

// TestOverviewGenericSkeleton counts the testdata logs with the overview
// twice, with the skeleton cache's vector compare and batch lookup and with
// the generic one at a time (what machines without AVX2 run): the same
// reports.
func TestOverviewGenericSkeleton(t *testing.T) {
	checkOverviewGeneric(t, &hasSkelAVX2, "skeleton cache")
}

// letters writes i in the letters a to z (skeletons keep letters).
func letters(i int) string {
	s := []byte{'a' + byte(i%26)}
	for i /= 26; i > 0; i /= 26 {
		s = append(s, 'a'+byte(i%26))
	}
	return string(s)
}
