package logs

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"testing"

	"github.com/leakui/leakui/internal/fixtures"
)

// checkSkeletonCache runs lines through a skeleton cache the way a scanner
// does, twice, keeping every line's template as the masker gives it, and
// holds every line the cache answers to the masker: the entry's template key,
// field kinds (those of the line it came from) and level are the line's. It
// returns the lines the cache answered.
func checkSkeletonCache(t *testing.T, lines [][]byte) int {
	t.Helper()
	var c skelCache
	var m lineMasker
	hits := 0
	for pass := 0; pass < 2; pass++ {
		for _, l := range lines {
			c.misses = 0 // keep the cache on: this is about its answers
			e, hash := c.lookup(l)
			level, ok := m.mask(l)
			if e != nil {
				hits++
				if !ok || e.stat.key != string(m.key) || !bytes.Equal(e.stat.kinds, m.kinds) || e.level != level {
					t.Fatalf("line %q: the skeleton cache gives key %q kinds %v level %d; masker ok %v key %q kinds %v level %d",
						l, e.stat.key, e.stat.kinds, e.level, ok, m.key, m.kinds, level)
				}
				continue
			}
			if ok {
				c.keep(l, hash, &templateStat{key: string(m.key), kinds: bytes.Clone(m.kinds)}, level)
			}
		}
	}
	return hits
}

// randomDigits returns l with every digit another random digit.
func randomDigits(rng *rand.Rand, l []byte) []byte {
	l = bytes.Clone(l)
	for i, c := range l {
		if c >= '0' && c <= '9' {
			l[i] = '0' + byte(rng.Intn(10))
		}
	}
	return l
}

// TestSkeletonCacheMatchesMask holds the skeleton cache to the masker on
// every line of the testdata logs and the template seeds, on the same lines
// with their digits changed (the same skeleton), and with bytes changed,
// added or dropped (digits that become letters, 0x that becomes 1x, fields
// that stop being fields), and checks that it answers most lines of a log.
func TestSkeletonCacheMatchesMask(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	var lines [][]byte
	for _, path := range fixtures.Glob(t, "logs", "*") {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, bytes.Split(b, []byte{'\n'})...)
	}
	for _, s := range templateSeeds {
		lines = append(lines, []byte(s))
	}
	lines = append(lines, []byte("a 0x1f b 2"), []byte("a 1x1f b 2"), []byte("a 0x1f b 3"), []byte("a 1x1f b 3"),
		[]byte("a 1x1g b 2"), []byte("I0102 15:04:05 x"), []byte("W0102 15:04:05 x"), []byte("Ix102 15:04:05 x"))
	alphabet := []byte("0123456789abcdefxyzABCXYZ_.-: []\t\r\x00é")
	n := len(lines)
	for i := 0; i < 8*n; i++ {
		l := bytes.Clone(lines[rng.Intn(n)])
		for k := rng.Intn(4); k >= 0 && len(l) > 0; k-- {
			j := rng.Intn(len(l))
			switch rng.Intn(3) {
			case 0:
				l[j] = alphabet[rng.Intn(len(alphabet))]
			case 1:
				l = append(l[:j], append([]byte{alphabet[rng.Intn(len(alphabet))]}, l[j:]...)...)
			case 2:
				l = append(l[:j], l[j+1:]...)
			}
		}
		lines = append(lines, l, randomDigits(rng, l))
	}
	for i := range n {
		lines = append(lines, randomDigits(rng, lines[i]))
	}
	checkSkeletonCache(t, lines)

	var bench [][]byte
	for i := range 2000 {
		bench = append(bench, []byte(fmt.Sprintf("2023-06-21 00:%02d:%02d.%03d [pool-%d-thread-%d] o.a.s.c.RunLoop [DEBUG] Processed %d envelopes in 12 ms",
			i/600%60, i/10%60, rng.Intn(1000), 1+rng.Intn(4), 1+rng.Intn(8), 1000+rng.Intn(9000))))
	}
	if hits := checkSkeletonCache(t, bench); hits < 2*len(bench)-1 {
		t.Errorf("the skeleton cache answered %d of %d lines of one skeleton", hits, 2*len(bench))
	}
}

// TestSkeletonWord holds skeletonWord to a byte at a time on every byte
// value at every place of a word.
func TestSkeletonWord(t *testing.T) {
	for c := 0; c < 256; c++ {
		for at := 0; at < 8; at++ {
			w := []byte("a0\xff9/:\xc3.")
			w[at] = byte(c)
			want := bytes.Clone(w)
			for i, b := range want {
				if b >= '0' && b <= '9' {
					want[i] = '0'
				}
			}
			got := make([]byte, 8)
			putLE(got, skeletonWord(getLE(w)))
			if !bytes.Equal(got, want) {
				t.Fatalf("skeleton of %q: %q, want %q", w, got, want)
			}
		}
	}
}
