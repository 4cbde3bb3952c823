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
// TestSkeletonCacheMatchesMask and FuzzTemplateSkeleton hold the cache to the
// masker.

// logSkelBuckets is the number of buckets of a skeleton cache (two entries
// each; the top logSkelBucketBits of a hash pick one), and logSkelMaxLine the
// longest line it keeps.
const (
	logSkelBucketBits = 7
	logSkelBuckets    = 1 << logSkelBucketBits
	logSkelMaxLine    = 512
)

// logSkelCache is the skeleton cache of one scanner and one part.
type logSkelCache struct {
	slots [2 * logSkelBuckets]logSkelEntry
	// hits and misses count the lines looked up; off is set once misses are
	// many and most: the part's lines then skip the cache.
	hits, misses int
	off          bool
}

// logSkelEntry is a skeleton and the template of its lines.
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
	}
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
	if logHasSkelAVX2 && len(line) >= 32 {
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
	n := len(text)
	// The hash: the line's length and its skeleton's middle 8 bytes,
	// multiplied by an odd constant whose top bits pick the bucket.
	hash = (logSkeletonWord(binary.LittleEndian.Uint64(text[n/2-4:])) ^ uint64(n)<<3) * 0x9e3779b97f4a7c15
	b := 2 * int(hash>>(64-logSkelBucketBits))
	for i := b; i < b+2; i++ {
		e := &c.slots[i]
		if e.hash != hash || len(e.skel) != n {
			continue
		}
		var same bool // logSkelEqual, written out: a call less
		if logHasSkelAVX2 && n >= 32 {
			same = logSkelEqualAVX2(text, e.skel)
		} else {
			same = logSkelEqualGeneric(text, e.skel)
		}
		if same {
			e.uses++
			c.hits++
			return e, hash
		}
	}
	c.misses++
	if c.misses > 4096 && c.misses > c.hits {
		c.off = true
	}
	return nil, hash
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
	e := &c.slots[b]
	if o := &c.slots[b+1]; len(o.skel) == 0 || (len(e.skel) > 0 && o.uses < e.uses) {
		e = o
	}
	c.slots[b].uses /= 2
	c.slots[b+1].uses /= 2
	e.hash, e.skel, e.stat, e.level, e.uses = hash, logSkeleton(e.skel[:0], text), stat, level, 1
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
