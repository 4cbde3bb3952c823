package logs

import (
	"encoding/binary"
)

// The skeleton cache, in front of the trie of template_fast.go. A line's
// skeleton is the line with every decimal digit written as '0'. Two lines of
// the same skeleton (the same length, the same bytes but digits, digits at the
// same places) mask alike unless a digit stands before an 'x' (0x1f is hex,
// 1x1f is not): every byte has the same class (class gives all digits one),
// so the words are the same spans and the same words are fields; a field's
// kind reads only classes and lengths, but for isHex0x, which reads a '0'
// before an 'x'; the literal bytes hold no digits, so they are equal; the level
// reads classes (klog) and literal words; control characters and invalid UTF-8
// are not digits. A line whose skeleton the cache holds therefore has the
// template, field kinds and level of the line the entry came from, whose kinds
// the template already holds: the line only adds one to the template's count.
// Lines with a digit before an 'x' are not kept, so none is found either (its
// skeleton has a '0' before the 'x').
//
// The cache compares a line's skeleton with an entry's 32 bytes at a time
// with AVX2 (skeleton_amd64.s), else 8 (skeletonWord); an entry is found
// by a hash of the line's length and of the skeleton's 8 bytes at its middle,
// two entries a hash.
//
// With AVX2 the overview looks up a batch of lines at once (probeBatch,
// skelBatch in skeleton_amd64.s: the hash, the two slots and the compare
// of each line in one loop, with no call a line), then counts them in order;
// a line whose answer is -1, or whose slot keep wrote after the batch ran
// (kept), takes the way one line at a time (lookup, which counts the misses),
// so the answers and counts are lookup's. Without AVX2, or built with the
// purego tag (which leaves the assembly out), every line takes that way.
//
// TestSkeletonCacheMatchesMask and FuzzTemplateSkeleton hold the cache to the
// masker; FuzzSkelBatch holds the batch to its Go twin skelBatchGeneric
// and to probe, TestSkelBatchStaleAfterKeep checks that a written slot's
// answer is refused, TestOverviewGenericSkeleton that the overview reads the
// same without AVX2.

// skelBuckets is the number of buckets of a skeleton cache (two entries
// each; the top skelBucketBits of a hash pick one), and skelMaxLine the
// longest line it keeps. skelHashMultiplier is the odd constant a hash is
// multiplied by (2^64 divided by the golden ratio: its top bits spread
// nearby keys over the buckets). skelChunk is the bytes of one vector
// compare: the vector paths take lines of at least that many.
// skeleton_amd64.s reads all four from go_asm.h.
const (
	skelBucketBits     = 7
	skelBuckets        = 1 << skelBucketBits
	skelMaxLine        = 512
	skelHashMultiplier = 0x9e3779b97f4a7c15
	skelChunk          = 32
)

// skelSlots are the entries of a skeleton cache, bucket after bucket.
type skelSlots [2 * skelBuckets]skelEntry

// skelCache is the skeleton cache of one scanner and one part.
type skelCache struct {
	slots skelSlots
	// hits and misses count the lines looked up; off is set once misses are
	// many and most: the part's lines then skip the cache.
	hits, misses int
	off          bool
	// keeps counts the skeletons kept, and kept[i] is keeps after slot i
	// was last written: a batch's answer about slot i is stale once kept[i]
	// is past what keeps was when the batch ran.
	keeps uint32
	kept  [2 * skelBuckets]uint32
	// batch holds a batch's answers (skelBatch).
	batch []int16
}

// skelEntry is a skeleton and the template of its lines. skeleton_amd64.s
// reads hash and skel through the offsets of go_asm.h.
type skelEntry struct {
	hash  uint64
	skel  []byte // nil: empty
	stat  *templateStat
	level int
	uses  int
}

// reset empties the cache (a new part has a new table).
func (c *skelCache) reset() {
	for i := range c.slots {
		c.slots[i].skel, c.slots[i].stat = c.slots[i].skel[:0:0], nil
		c.slots[i].uses = 0
		c.kept[i] = 0
	}
	c.keeps = 0
	c.hits, c.misses, c.off = 0, 0, false
}

// skeletonWord writes the decimal digits of the 8 bytes x as '0'.
func skeletonWord(x uint64) uint64 {
	const (
		lo   = 0x7f7f7f7f7f7f7f7f
		high = 0x8080808080808080
	)
	y := x & lo
	ge0 := y + 0x5050505050505050 // high bit: the byte's low 7 bits >= '0'
	gt9 := y + 0x4646464646464646 // high bit: … >= '9'+1
	digit := ge0 &^ gt9 &^ x & high
	m := (digit >> 7) * 0xff
	return x&^m | m&0x3030303030303030
}

// skelEqual reports whether line's skeleton is skel (of the same length,
// at least 8): with AVX2 32 bytes a compare (skeleton_amd64.s), else 8.
func skelEqual(line, skel []byte) bool {
	if hasSkelAVX2 && len(line) >= skelChunk {
		return skelEqualAVX2(line, skel)
	}
	return skelEqualGeneric(line, skel)
}

// skelEqualGeneric is skelEqual 8 bytes at a time.
func skelEqualGeneric(line, skel []byte) bool {
	n := len(line)
	i := 0
	for ; i+8 <= n; i += 8 {
		if skeletonWord(binary.LittleEndian.Uint64(line[i:])) != binary.LittleEndian.Uint64(skel[i:]) {
			return false
		}
	}
	if i < n {
		return skeletonWord(binary.LittleEndian.Uint64(line[n-8:])) == binary.LittleEndian.Uint64(skel[n-8:])
	}
	return true
}

// lookup returns the entry whose skeleton is text's, or nil; hash is text's
// hash, for keep.
func (c *skelCache) lookup(text []byte) (e *skelEntry, hash uint64) {
	if c.off || len(text) < 8 || len(text) > skelMaxLine {
		return nil, 0
	}
	hash = skelHash(text)
	if i := c.probe(text, hash); i >= 0 {
		e := &c.slots[i]
		e.uses++
		c.hits++
		return e, hash
	}
	c.misses++
	if c.misses > 4096 && c.misses > c.hits {
		c.off = true
	}
	return nil, hash
}

// skelHash is the hash of a line of 8 to skelMaxLine bytes: its
// length and its skeleton's middle 8 bytes, multiplied by an odd constant
// whose top bits pick the bucket.
func skelHash(text []byte) uint64 {
	n := len(text)
	return (skeletonWord(binary.LittleEndian.Uint64(text[n/2-4:])) ^ uint64(n)<<3) * skelHashMultiplier
}

// probe returns the slot whose skeleton is text's (of 8 to skelMaxLine
// bytes, hash its skelHash), or -1: skelProbe with the vector compare
// where there is one.
func (c *skelCache) probe(text []byte, hash uint64) int {
	return skelProbe(&c.slots, text, hash, hasSkelAVX2)
}

// skelProbe returns the slot of slots whose skeleton is text's (of 8 to
// skelMaxLine bytes, hash its skelHash), or -1: the two slots of its
// bucket in turn, compared with AVX2 when vector is set and text has at
// least skelChunk bytes.
func skelProbe(slots *skelSlots, text []byte, hash uint64, vector bool) int {
	n := len(text)
	b := 2 * int(hash>>(64-skelBucketBits))
	for i := b; i < b+2; i++ {
		e := &slots[i]
		if e.hash != hash || len(e.skel) != n {
			continue
		}
		var same bool // skelEqual, written out: a call less
		if vector && n >= skelChunk {
			same = skelEqualAVX2(text, e.skel)
		} else {
			same = skelEqualGeneric(text, e.skel)
		}
		if same {
			return i
		}
	}
	return -1
}

// probeBatch is probe for many lines at once: the lines of b from from to
// ends[0], then to ends[1], … (each ends before its '\n'). It returns each
// line's slot or -1 (also for lines shorter than skelChunk bytes), and
// keeps as it was: hit takes an answer only while its slot is unchanged.
// Counting is left to hit, and misses to lookup. With AVX2 one assembly loop
// looks them all up (skelBatch), else skelBatchGeneric.
func (c *skelCache) probeBatch(b []byte, ends []int32, from int) (slots []int16, asOf uint32) {
	if cap(c.batch) < len(ends) {
		c.batch = make([]int16, len(ends), max(len(ends), overviewEnds))
	}
	slots = c.batch[:len(ends)]
	if hasSkelAVX2 {
		skelBatch(b, ends, from, &c.slots, slots)
	} else {
		skelBatchGeneric(b, ends, from, &c.slots, slots)
	}
	return slots, c.keeps
}

// skelBatchGeneric is skelBatch in Go, the twin FuzzSkelBatch holds
// the assembly to: it writes to out[k] the slot of slots holding the
// skeleton of the line from from to ends[0] (k = 0), then to ends[1], …, or
// -1 when none does or the line has fewer than skelChunk or more than
// skelMaxLine bytes.
func skelBatchGeneric(text []byte, ends []int32, from int, slots *skelSlots, out []int16) {
	for k, end := range ends {
		line := text[from:end]
		out[k] = -1
		if n := len(line); n >= skelChunk && n <= skelMaxLine {
			out[k] = int16(skelProbe(slots, line, skelHash(line), false))
		}
		from = int(end) + 1
	}
}

// hitAt is hit of slots[k], or nil when there are no slots (no batch ran).
func (c *skelCache) hitAt(slots []int16, k int, asOf uint32) *skelEntry {
	if slots == nil {
		return nil
	}
	return c.hit(slots[k], asOf)
}

// hit returns the entry of slot i, an answer of a probeBatch when keeps was
// asOf, and counts it as lookup would; nil when i is -1 or the slot was
// written since.
func (c *skelCache) hit(i int16, asOf uint32) *skelEntry {
	if i < 0 || c.kept[i] > asOf {
		return nil
	}
	e := &c.slots[i]
	e.uses++
	c.hits++
	return e
}

// keep remembers the template of text (hash from lookup), which was counted
// with its kinds in stat (nil: the table refused it), and its level: in the
// empty or less used entry of its bucket.
func (c *skelCache) keep(text []byte, hash uint64, stat *templateStat, level int) {
	if c.off || len(text) < 8 || len(text) > skelMaxLine {
		return
	}
	for i := 0; i+1 < len(text); i++ {
		if text[i+1] == 'x' && text[i] >= '0' && text[i] <= '9' {
			return // 0x… and 1x… mask apart
		}
	}
	b := 2 * int(hash>>(64-skelBucketBits))
	i := b // lookup tries it first
	if first, o := &c.slots[b], &c.slots[b+1]; len(first.skel) > 0 && (len(o.skel) == 0 || o.uses < first.uses) {
		i = b + 1
	}
	e := &c.slots[i]
	c.slots[b].uses /= 2
	c.slots[b+1].uses /= 2
	e.hash, e.skel, e.stat, e.level, e.uses = hash, skeleton(e.skel[:0], text), stat, level, 1
	c.keeps++
	c.kept[i] = c.keeps
}

// skeleton appends the skeleton of text (at least 8 bytes) to dst.
func skeleton(dst, text []byte) []byte {
	n := len(text)
	i := 0
	for ; i+8 <= n; i += 8 {
		dst = binary.LittleEndian.AppendUint64(dst, skeletonWord(binary.LittleEndian.Uint64(text[i:])))
	}
	if i < n {
		var t [8]byte
		binary.LittleEndian.PutUint64(t[:], skeletonWord(binary.LittleEndian.Uint64(text[n-8:])))
		dst = append(dst, t[8-(n-i):]...)
	}
	return dst
}
