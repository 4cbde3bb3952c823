package logs

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"strings"
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
	var c fastCache
	return checkFastPathWith(t, &c, lines)
}

// checkFastPathWith is checkFastPath with the trie c.
func checkFastPathWith(t *testing.T, c *fastCache, lines [][]byte) int {
	t.Helper()
	var m lineMasker
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
		fastDisabled = true
		slow := countFile(t, countVariants[0], path, CountOptions{Overview: true}).Overview
		fastDisabled = false
		if len(fast.Templates) != len(slow.Templates) || fast.Distinct != slow.Distinct || fast.OtherLines != slow.OtherLines {
			t.Fatalf("%s: fast path %d templates (%d distinct, %d other lines), masker %d (%d, %d)", path,
				len(fast.Templates), fast.Distinct, fast.OtherLines, len(slow.Templates), slow.Distinct, slow.OtherLines)
		}
		for i := range fast.Templates {
			if fmt.Sprintf("%+v", fast.Templates[i]) != fmt.Sprintf("%+v", slow.Templates[i]) {
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

// TestFastPathTails holds the fast path to the masker on lines of the
// benchmark log's layout (each with its own time and thread, the templates'
// other fields constant), with some lines ending in CR and some with another
// word in a constant field, and checks that the tails answered most of them
// (see fastCache.match).
func TestFastPathTails(t *testing.T) {
	noise := []string{
		"o.a.s.c.SamzaContainer [INFO] Entering run loop.",
		"o.a.s.s.k.KafkaSystemConsumer [DEBUG] kafka-system-consumer-checkpoint: Fetched 0 messages for ssp SystemStreamPartition [kafka, __samza_checkpoint_ver_1_for_seas-cloud-consumer_1, 0]",
		"o.a.k.c.c.i.ConsumerCoordinator [INFO] [Consumer clientId=consumer-seas-1, groupId=seas] Setting offset for partition events-3 to the committed offset FetchPosition{offset=81237123}",
		"o.a.s.c.RunLoop [DEBUG] Processed 1000 envelopes in 12 ms, blocked 3 ms",
		"o.a.k.c.NetworkClient [WARN] [Consumer clientId=consumer-seas-2] Connection to node 3 (broker-3/10.0.0.3:9092) could not be established. Broker may not be available.",
		"o.a.s.s.StorageManager [INFO] Restoring store kv-store from changelog, 12 partitions",
	}
	rng := rand.New(rand.NewSource(3))
	var lines [][]byte
	for i := 0; i < 4000; i++ {
		msg := noise[rng.Intn(len(noise))]
		switch rng.Intn(20) {
		case 0: // another word in a constant field, or none
			msg = strings.Replace(msg, "3", []string{"4", "0x1f", "a", "3.3.3.3", ""}[rng.Intn(5)], 1)
		case 1:
			msg += "\r"
		case 2:
			msg = strings.Replace(msg, "INFO", "WARN", 1)
		}
		lines = append(lines, []byte(fmt.Sprintf("2023-06-21 00:%02d:%02d.%03d [pool-%d-thread-%d] %s", i/600%60, i/10%60, rng.Intn(1000), 1+rng.Intn(4), 1+rng.Intn(8), msg)))
	}
	var c fastCache
	hits := checkFastPathWith(t, &c, lines)
	if c.tailHits < hits/2 {
		t.Errorf("the tails answered %d of the %d lines the trie did", c.tailHits, hits)
	}
}
