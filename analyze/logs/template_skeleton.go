package logs

import (
	"encoding/binary"
)

// The skeleton cache, in front of the trie of template_fast.go. A line's
// skeleton is the line with every decimal digit written as '0'. Two lines of
// the same skeleton (the same length, the same bytes but digits, digits at the
// same places) mask alike unless a digit stands before an 'x' (0x1f is hex,
// 1x1f is not): every byte has the same class (logClass gives all digits one),
// so the words are the same spans and the same words are fields; a field's
// kind reads only classes and lengths, but for logIsHex0x, which reads a '0'
// before an 'x'; the literal bytes hold no digits, so they are equal; the level
// reads classes (klog) and literal words; control characters and invalid UTF-8
// are not digits. A line whose skeleton the cache holds therefore has the
// template, field kinds and level of the line the entry came from, whose kinds
// the template already holds: the line only adds one to the template's count.
// Lines with a digit before an 'x' are not kept, so none is found either (its
// skeleton has a '0' before the 'x').
//
// The cache compares a line's skeleton with an entry's 32 bytes at a time
// with AVX2 (skeleton_amd64.s), else 8 (logSkeletonWord); an entry is found
// by a hash of the line's length and of the skeleton's 8 bytes at its middle,
// two entries a hash.
//
// With AVX2 the overview looks up a batch of lines at once (probeBatch,
// logSkelBatch in skeleton_amd64.s: the hash, the two slots and the compare
// of each line in one loop, with no call a line), then counts them in order;
// a line whose answer is -1, or whose slot keep wrote after the batch ran
// (kept), takes the way one line at a time (lookup, which counts the misses),
// so the answers and counts are lookup's. Without AVX2, or built with the
// purego tag (which leaves the assembly out), every line takes that way.
//
// TestSkeletonCacheMatchesMask and FuzzTemplateSkeleton hold the cache to the
// masker; FuzzSkelBatch holds the batch to its Go twin logSkelBatchGeneric
// and to probe, TestSkelBatchStaleAfterKeep checks that a written slot's
// answer is refused, TestOverviewGenericSkeleton that the overview reads the
// same without AVX2.

// logSkelBuckets is the number of buckets of a skeleton cache (two entries
// each; the top logSkelBucketBits of a hash pick one), and logSkelMaxLine the
// longest line it keeps. logSkelHashMultiplier is the odd constant a hash is
// multiplied by (2^64 divided by the golden ratio: its top bits spread
// nearby keys over the buckets). logSkelChunk is the bytes of one vector
// compare: the vector paths take lines of at least that many.
// skeleton_amd64.s reads all four from go_asm.h.
const (
	logSkelBucketBits     = 7
	logSkelBuckets        = 1 << logSkelBucketBits
	logSkelMaxLine        = 512
	logSkelHashMultiplier = 0x9e3779b97f4a7c15
	logSkelChunk          = 32
)

// logSkelSlots are the entries of a skeleton cache, bucket after bucket.
type logSkelSlots [2 * logSkelBuckets]logSkelEntry

// logSkelCache is the skeleton cache of one scanner and one part.
type logSkelCache struct {
	slots logSkelSlots
	// hits and misses count the lines looked up; off is set once misses are
	// many and most: the part's lines then skip the cache.
	hits, misses int
	off          bool
	// keeps counts the skeletons kept, and kept[i] is keeps after slot i
	// was last written: a batch's answer about slot i is stale once kept[i]
	// is past what keeps was when the batch ran.
	keeps uint32
	kept  [2 * logSkelBuckets]uint32
	// batch holds a batch's answers (logSkelBatch).
	batch []int16
}

// logSkelEntry is a skeleton and the template of its lines. skeleton_amd64.s
// reads hash and skel through the offsets of go_asm.h.
type logSkelEntry struct {
	hash  uint64
	skel  []byte // nil: empty
	stat  *logTemplateStat
	level int
	uses  int
}

// reset empties the cache (a new part has a new table).
func (c *logSkelCache) reset() {
	for i := range c.slots {
		c.slots[i].skel, c.slots[i].stat = c.slots[i].skel[:0:0], nil
		c.slots[i].uses = 0
		c.kept[i] = 0
	}
	c.keeps = 0
	c.hits, c.misses, c.off = 0, 0, false
}

// logSkeletonWord writes the decimal digits of the 8 bytes x as '0'.
func logSkeletonWord(x uint64) uint64 {
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

// logSkelEqual reports whether line's skeleton is skel (of the same length,
// at least 8): with AVX2 32 bytes a compare (skeleton_amd64.s), else 8.
func logSkelEqual(line, skel []byte) bool {
	if logHasSkelAVX2 && len(line) >= logSkelChunk {
		return logSkelEqualAVX2(line, skel)
	}
	return logSkelEqualGeneric(line, skel)
}

// logSkelEqualGeneric is logSkelEqual 8 bytes at a time.
func logSkelEqualGeneric(line, skel []byte) bool {
	n := len(line)
	i := 0
	for ; i+8 <= n; i += 8 {
		if logSkeletonWord(binary.LittleEndian.Uint64(line[i:])) != binary.LittleEndian.Uint64(skel[i:]) {
			return false
		}
	}
	if i < n {
		return logSkeletonWord(binary.LittleEndian.Uint64(line[n-8:])) == binary.LittleEndian.Uint64(skel[n-8:])
	}
	return true
}

// lookup returns the entry whose skeleton is text's, or nil; hash is text's
// hash, for keep.
func (c *logSkelCache) lookup(text []byte) (e *logSkelEntry, hash uint64) {
	if c.off || len(text) < 8 || len(text) > logSkelMaxLine {
		return nil, 0
	}
	hash = logSkelHash(text)
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

// logSkelHash is the hash of a line of 8 to logSkelMaxLine bytes: its
// length and its skeleton's middle 8 bytes, multiplied by an odd constant
// whose top bits pick the bucket.
func logSkelHash(text []byte) uint64 {
	n := len(text)
	return (logSkeletonWord(binary.LittleEndian.Uint64(text[n/2-4:])) ^ uint64(n)<<3) * logSkelHashMultiplier
}

// probe returns the slot whose skeleton is text's (of 8 to logSkelMaxLine
// bytes, hash its logSkelHash), or -1: logSkelProbe with the vector compare
// where there is one.
func (c *logSkelCache) probe(text []byte, hash uint64) int {
	return logSkelProbe(&c.slots, text, hash, logHasSkelAVX2)
}

// logSkelProbe returns the slot of slots whose skeleton is text's (of 8 to
// logSkelMaxLine bytes, hash its logSkelHash), or -1: the two slots of its
// bucket in turn, compared with AVX2 when vector is set and text has at
// least logSkelChunk bytes.
func logSkelProbe(slots *logSkelSlots, text []byte, hash uint64, vector bool) int {
	n := len(text)
	b := 2 * int(hash>>(64-logSkelBucketBits))
	for i := b; i < b+2; i++ {
		e := &slots[i]
		if e.hash != hash || len(e.skel) != n {
			continue
		}
		var same bool // logSkelEqual, written out: a call less
		if vector && n >= logSkelChunk {
			same = logSkelEqualAVX2(text, e.skel)
		} else {
			same = logSkelEqualGeneric(text, e.skel)
		}
		if same {
			return i
		}
	}
	return -1
}

// probeBatch is probe for many lines at once: the lines of b from from to
// ends[0], then to ends[1], … (each ends before its '\n'). It returns each
// line's slot or -1 (also for lines shorter than logSkelChunk bytes), and
// keeps as it was: hit takes an answer only while its slot is unchanged.
// Counting is left to hit, and misses to lookup. With AVX2 one assembly loop
// looks them all up (logSkelBatch), else logSkelBatchGeneric.
func (c *logSkelCache) probeBatch(b []byte, ends []int32, from int) (slots []int16, asOf uint32) {
	if cap(c.batch) < len(ends) {
		c.batch = make([]int16, len(ends), max(len(ends), logOverviewEnds))
	}
	slots = c.batch[:len(ends)]
	if logHasSkelAVX2 {
		logSkelBatch(b, ends, from, &c.slots, slots)
	} else {
		logSkelBatchGeneric(b, ends, from, &c.slots, slots)
	}
	return slots, c.keeps
}

// logSkelBatchGeneric is logSkelBatch in Go, the twin FuzzSkelBatch holds
// the assembly to: it writes to out[k] the slot of slots holding the
// skeleton of the line from from to ends[0] (k = 0), then to ends[1], …, or
// -1 when none does or the line has fewer than logSkelChunk or more than
// logSkelMaxLine bytes.
func logSkelBatchGeneric(text []byte, ends []int32, from int, slots *logSkelSlots, out []int16) {
	for k, end := range ends {
		line := text[from:end]
		out[k] = -1
		if n := len(line); n >= logSkelChunk && n <= logSkelMaxLine {
			out[k] = int16(logSkelProbe(slots, line, logSkelHash(line), false))
		}
		from = int(end) + 1
	}
}

// hitAt is hit of slots[k], or nil when there are no slots (no batch ran).
func (c *logSkelCache) hitAt(slots []int16, k int, asOf uint32) *logSkelEntry {
	if slots == nil {
		return nil
	}
	return c.hit(slots[k], asOf)
}

// hit returns the entry of slot i, an answer of a probeBatch when keeps was
// asOf, and counts it as lookup would; nil when i is -1 or the slot was
// written since.
func (c *logSkelCache) hit(i int16, asOf uint32) *logSkelEntry {
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
func (c *logSkelCache) keep(text []byte, hash uint64, stat *logTemplateStat, level int) {
	if c.off || len(text) < 8 || len(text) > logSkelMaxLine {
		return
	}
	for i := 0; i+1 < len(text); i++ {
		if text[i+1] == 'x' && text[i] >= '0' && text[i] <= '9' {
			return // 0x… and 1x… mask apart
		}
	}
	b := 2 * int(hash>>(64-logSkelBucketBits))
	i := b // lookup tries it first
	if first, o := &c.slots[b], &c.slots[b+1]; len(first.skel) > 0 && (len(o.skel) == 0 || o.uses < first.uses) {
		i = b + 1
	}
	e := &c.slots[i]
	c.slots[b].uses /= 2
	c.slots[b+1].uses /= 2
	e.hash, e.skel, e.stat, e.level, e.uses = hash, logSkeleton(e.skel[:0], text), stat, level, 1
	c.keeps++
	c.kept[i] = c.keeps
}

// logSkeleton appends the skeleton of text (at least 8 bytes) to dst.
func logSkeleton(dst, text []byte) []byte {
	n := len(text)
	i := 0
	for ; i+8 <= n; i += 8 {
		dst = binary.LittleEndian.AppendUint64(dst, logSkeletonWord(binary.LittleEndian.Uint64(text[i:])))
	}
	if i < n {
		var t [8]byte
		binary.LittleEndian.PutUint64(t[:], logSkeletonWord(binary.LittleEndian.Uint64(text[n-8:])))
		dst = append(dst, t[8-(n-i):]...)
	}
	return dst
}
