package logs

import "bytes"

// finder finds one literal in a byte slice, exactly or (fold) in any ASCII
// case. It scans for a pair of the literal's rarest bytes at their fixed
// distance (a vector loop on amd64) and verifies each candidate, which is what
// makes four literals cheaper than one grep: the pair is rare even when each
// byte alone is common.
type finder struct {
	pat    []byte // the literal; lower case when fold
	fold   bool   // match ASCII letters in either case; candidates are not verified
	a, b   int    // offsets in pat of the two scanned bytes, a < b
	ca, cb byte   // pat[a], pat[b]
	mask   byte   // 0x20 when fold: compare c|0x20
}

// sampleSize is how much of an input's head is sampled to rank bytes by how
// often they occur in that log.
const sampleSize = 64 << 10

// byteRanks scores each byte by how common it is: its count in the sample
// dominates, and a static guess about text breaks ties and covers a small or
// missing sample. Lower is rarer.
type byteRanks [256]uint64

// newLogByteRanks ranks bytes by their frequency in sample.
func newLogByteRanks(sample []byte) *byteRanks {
	var r byteRanks
	for _, c := range sample {
		r[c] += 256
	}
	for c := range r {
		r[c] += uint64(staticRank(byte(c)))
	}
	return &r
}

// rank is how common c is; with fold, both cases of a letter count.
func (r *byteRanks) rank(c byte, fold bool) uint64 {
	if fold && c|0x20 >= 'a' && c|0x20 <= 'z' {
		return r[c|0x20] + r[c&^0x20]
	}
	return r[c]
}

// staticRank guesses how common a byte is in a text log, from 0 (rare) to
// 255 (space).
func staticRank(c byte) uint8 {
	switch {
	case c == ' ':
		return 255
	case bytes.IndexByte([]byte("etaoinsrhl"), c) >= 0:
		return 240
	case c >= '0' && c <= '9':
		return 230
	case bytes.IndexByte([]byte("dcumfpgwybv"), c) >= 0:
		return 200
	case bytes.IndexByte([]byte(".:-_/[]()=,'\"\t"), c) >= 0:
		return 190
	case c >= 'a' && c <= 'z':
		return 150
	case c >= 'A' && c <= 'Z':
		return 120
	case c == '\n' || c == '\r':
		return 100
	case c > ' ' && c < 0x7f:
		return 80
	}
	return 20
}

// newLogFinder prepares a finder for pat (lower case when fold). The scanned
// pair is chosen among the rarest bytes of pat by how often the pair itself
// occurs in sample.
func newLogFinder(pat []byte, fold bool, ranks *byteRanks, sample []byte) finder {
	f := finder{pat: pat, fold: fold}
	if fold {
		f.mask = 0x20
	}
	if len(pat) < 2 {
		if len(pat) == 1 {
			f.ca = pat[0] | f.mask
		}
		return f
	}
	// Up to five rarest positions with distinct bytes.
	var cand []int
	used := [256]bool{}
	for len(cand) < 5 {
		best := -1
		for i, c := range pat {
			if used[c] {
				continue
			}
			if best < 0 || ranks.rank(c, fold) < ranks.rank(pat[best], fold) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		used[pat[best]] = true
		cand = append(cand, best)
	}
	if len(cand) == 1 { // one distinct byte, such as "aaaa"
		cand = append(cand, len(pat)-1)
		if cand[0] == cand[1] {
			cand[1] = 0
		}
	}
	bestScore := uint64(1<<63 - 1)
	for i := 0; i < len(cand); i++ {
		for j := i + 1; j < len(cand); j++ {
			a, b := min(cand[i], cand[j]), max(cand[i], cand[j])
			n := pairCount(sample, pat[a]|f.mask, pat[b]|f.mask, f.mask, b-a)
			score := n<<16 + ranks.rank(pat[a], fold)/256 + ranks.rank(pat[b], fold)/256
			if score < bestScore {
				bestScore, f.a, f.b = score, a, b
			}
		}
	}
	f.ca, f.cb = pat[f.a]|f.mask, pat[f.b]|f.mask
	return f
}

// pairCount counts the positions of the pair (c1, c2 at distance d) in s.
func pairCount(s []byte, c1, c2, mask byte, d int) uint64 {
	var n uint64
	for off := 0; off < len(s); {
		j := indexPair(s[off:], c1, c2, mask, mask, d)
		if j < 0 {
			break
		}
		n++
		off += j + 1
	}
	return n
}

// index returns the offset of the first occurrence of the literal in s (of a
// candidate, when fold), or -1.
func (f *finder) index(s []byte) int {
	n := len(f.pat)
	switch {
	case n == 0:
		return 0
	case n == 1 && !f.fold:
		return bytes.IndexByte(s, f.pat[0])
	case n == 1:
		lo, up := bytes.IndexByte(s, f.ca), bytes.IndexByte(s, f.ca&^0x20)
		if lo < 0 || (up >= 0 && up < lo) {
			return up
		}
		return lo
	case len(s) < n:
		return -1
	}
	// Position j of region is a candidate start of the literal in s: region[j]
	// is s[j+a] and region[j+d] is s[j+b]; j+d < len(region) keeps j+n ≤ len(s).
	d := f.b - f.a
	region := s[f.a : len(s)-n+f.b+1]
	for off := 0; ; {
		j := indexPair(region[off:], f.ca, f.cb, f.mask, f.mask, d)
		if j < 0 {
			return -1
		}
		p := off + j
		if f.fold || bytes.Equal(s[p:p+n], f.pat) {
			return p
		}
		off = p + 1
	}
}

// indexPairGeneric is the portable pair scan.
func indexPairGeneric(s []byte, c1, c2, m1, m2 byte, d int) int {
	if m1 == 0 {
		for j := 0; j+d < len(s); {
			k := bytes.IndexByte(s[j:len(s)-d], c1)
			if k < 0 {
				return -1
			}
			j += k
			if s[j+d]|m2 == c2 {
				return j
			}
			j++
		}
		return -1
	}
	for j := 0; j+d < len(s); j++ {
		if s[j]|m1 == c1 && s[j+d]|m2 == c2 {
			return j
		}
	}
	return -1
}
