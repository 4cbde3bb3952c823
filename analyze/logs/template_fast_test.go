package logs

import (
	"bytes"
	"math/rand"
	"os"
	"testing"

	"github.com/leakui/leakui/internal/fixtures"
)

// checkFastPath runs lines through a template trie the way a scanner does,
// twice, and holds every answer of the fast path to the masker's on the same
// line: the same template key, field kinds and level. A line whose template
// the trie holds must be found by it. It returns the lines the fast path
// answered.
func checkFastPath(t *testing.T, lines [][]byte) int {
	t.Helper()
	var c logFastCache
	var m logMasker
	held := map[string]bool{}
	hits := 0
	for pass := 0; pass < 2; pass++ {
		for _, l := range lines {
			c.misses = 0 // keep the trie on: this is about its answers
			leaf, level := c.match(l)
			want, ok := m.mask(l)
			if leaf != nil {
				hits++
				if !ok || leaf.key != string(m.key) || !bytes.Equal(c.fieldKinds(), m.kinds) || level != want {
					t.Fatalf("line %q: fast path gives key %q kinds %v level %d; masker ok %v key %q kinds %v level %d",
						l, leaf.key, c.fieldKinds(), level, ok, m.key, m.kinds, want)
				}
				continue
			}
			if !ok {
				continue
			}
			if held[string(m.key)] {
				t.Fatalf("line %q: the trie holds its template %q but missed it", l, m.key)
			}
			if c.insert(m.key, nil) {
				held[string(m.key)] = true
			}
		}
	}
	return hits
}

// TestFastPathMatchesMask holds the fast path to the masker on every line of
// the testdata logs, on the same lines with their digits, letters and
// punctuation randomly changed (fields that change kind, literals that
// change by one byte, fields that stop being fields) and on random lines.
func TestFastPathMatchesMask(t *testing.T) {
	var lines [][]byte
	for _, path := range fixtures.Glob(t, "logs", "*") {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		file := bytes.Split(b, []byte{'\n'})
		// Read twice, every line of a template the trie holds is found
		// the second time: at least every line, unless the trie is full.
		if hits := checkFastPath(t, file); hits < len(file) {
			t.Errorf("%s: the fast path answered %d of its %d lines read twice", path, hits, len(file))
		}
		lines = append(lines, file...)
	}
	for _, s := range templateSeeds {
		lines = append(lines, []byte(s))
	}
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte("0123456789abcdefxyzABCXYZ_.-: []\t\r\x00é")
	n := len(lines)
	for i := 0; i < 8*n; i++ {
		l := append([]byte(nil), lines[rng.Intn(n)]...)
		for k := rng.Intn(4); k >= 0 && len(l) > 0; k-- {
			j := rng.Intn(len(l))
			switch rng.Intn(4) {
			case 0: // change a byte
				l[j] = alphabet[rng.Intn(len(alphabet))]
			case 1: // insert a byte
				l = append(l[:j], append([]byte{alphabet[rng.Intn(len(alphabet))]}, l[j:]...)...)
			case 2: // drop a byte
				l = append(l[:j], l[j+1:]...)
			case 3: // a digit for a digit, the field keeps its kind
				if l[j] >= '0' && l[j] <= '9' {
					l[j] = '0' + byte(rng.Intn(10))
				}
			}
		}
		lines = append(lines, l)
	}
	for i := 0; i < n; i++ {
		l := make([]byte, rng.Intn(40))
		for j := range l {
			l[j] = alphabet[rng.Intn(len(alphabet))]
		}
		lines = append(lines, l)
	}
	checkFastPath(t, lines)
}

// TestFastPathCountsExactly counts the testdata logs with the overview and
// checks the templates against a count where every line goes through the
// masker (a trie that takes nothing).
func TestFastPathCountsExactly(t *testing.T) {
	for _, path := range fixtures.Glob(t, "logs", "*") {
		fast := countFile(t, countVariants[0], path, CountOptions{Overview: true}).Overview
		logFastDisabled = true
		slow := countFile(t, countVariants[0], path, CountOptions{Overview: true}).Overview
		logFastDisabled = false
		if len(fast.Templates) != len(slow.Templates) || fast.Distinct != slow.Distinct || fast.OtherLines != slow.OtherLines {
			t.Fatalf("%s: fast path %d templates (%d distinct, %d other lines), masker %d (%d, %d)", path,
				len(fast.Templates), fast.Distinct, fast.OtherLines, len(slow.Templates), slow.Distinct, slow.OtherLines)
		}
		for i := range fast.Templates {
			if fast.Templates[i] != slow.Templates[i] {
				t.Errorf("%s: template %d is %+v with the fast path, %+v without", path, i, fast.Templates[i], slow.Templates[i])
			}
		}
		for i := range fast.Levels {
			if fast.Levels[i] != slow.Levels[i] {
				t.Errorf("%s: level %v with the fast path, %v without", path, fast.Levels[i], slow.Levels[i])
			}
		}
	}
}
