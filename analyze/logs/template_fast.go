package logs

import (
	"encoding/binary"
	"math/bits"

	"github.com/leakui/leakui/analyze/logline"
)

// The fast path of the masker. A log repeats a few templates, so each scanner
// keeps the templates its part has seen in a trie of their literal segments:
// a line walks it comparing whole segments (memequal, vectorised in the Go
// runtime) and scanning only its field words byte by byte, and lands on the
// template's entry in the part's table without hashing the key. Any line the
// trie does not lead to a template goes through lineMasker.mask, and its
// template is added to the trie.
//
// Why the walk gives what mask gives: a template's key is its literal segments
// L0 F L1 F … Ln, where each F is a word (a maximal run of [0-9A-Za-z_.-])
// that is a field, so every segment but L0 ends with a byte that is not a word
// byte, every segment but the last starts with one, and the words inside a
// segment are whole words that are not fields. A line whose bytes are L0, a
// field word, L1, …, Ln (then the same trailing control characters, or none)
// therefore splits into the same words, with the same fields and literals, as
// the line the template came from: mask gives it the same key. The fields'
// kinds are computed from the line's words by the same fieldKind. Whether a
// line has a template at all (no control characters inside, valid UTF-8, a
// key of at most MaxTemplateBytes) depends only on its key: the literal bytes
// are those of a line that had one and the fields are ASCII. The level is the
// klog letter, read on the line as mask reads it, or else the first level word
// of the literal segments if it starts in the first levelScan bytes: the
// trie's leaf keeps where that word sits in its segment.
//
// Lines in a row share their first bytes (the date, the hour): a walk starts
// after the last field the line before ended inside that shared prefix, at
// the node it reached there. Only one edge of a node fits a line (its segment
// ends where the line's next field starts), and getting there looked at those
// bytes only.
//
// TestFastPathMatchesMask and FuzzTemplateFastPath hold the walk to mask on
// the testdata logs and on random lines.

// fastMaxEdges bounds a trie: once it holds that many edges, new templates
// are counted by the slow path only.
const fastMaxEdges = 4096

// fastMaxFields is the most fields a key of MaxTemplateBytes can hold
// (a field and a separator each).
const fastMaxFields = MaxTemplateBytes/2 + 1

// fastMaxVal is the longest field word an edge remembers: a line whose
// field is the same word as the line before skips classifying it.
const fastMaxVal = 64

// fastMaxSiblings bounds the segments tried at one place of a line.
const fastMaxSiblings = 256

// fastCache is the template trie of one scanner and one part.
type fastCache struct {
	root  fastNode
	edges int
	// hits and misses count the lines of the part the trie did and did not
	// lead to a template; off is set once misses are many and most: the
	// part's lines then go to the masker directly.
	hits, misses int
	off          bool
	// tailHits counts the lines a tail answered, tailBytes the bytes the
	// tails hold.
	tailHits, tailBytes int
	// The last line matched: its field kinds, and where each of its literal
	// segments starts.
	fields int
	kinds  [fastMaxFields]uint8
	segs   [fastMaxFields + 1]int32
	// The head of the last line walked, and the first steps of its walk:
	// the node after each field and the field's end.
	head     [fastHead]byte
	headLen  int
	steps    int
	stepNode [fastResume]*fastNode
	stepEnd  [fastResume]int32
}

// fastHead is how much of a line the next one is compared with, and
// fastResume the most steps of a walk kept for the next line to resume.
const (
	fastHead   = 64
	fastResume = 16
)

// commonPrefixBytes is the length of the longest common prefix of a and b,
// compared 8 bytes at a time.
func commonPrefixBytes(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for ; i < n && a[i] == b[i]; i++ {
	}
	return i
}

// fieldKinds returns the field kinds of the last line matched.
func (c *fastCache) fieldKinds() []uint8 { return c.kinds[:c.fields] }

// fastNode is a place in a line just after a field (or at its start): its
// edges are the literal segments seen there.
type fastNode struct {
	edges []fastEdge
}

// fastEdge is a literal segment: either followed by a field and the node
// after it, or ending the line (leaf set). The fields a walk reads of every
// sibling it tries (the probe, the tail) come first, in one cache line.
type fastEdge struct {
	// probe is the 8 bytes of lit at probeAt (those that tell it from its
	// siblings), probeMask the bits of them lit fills: a line whose bytes
	// differ there is not on this edge.
	probe, probeMask uint64
	probeAt          int
	// tail is a line's rest from this segment on, of a line whose fields
	// from here on were all the same words as the line before through the
	// same segments; tailLeaf, tailKinds and tailSegs (segment starts
	// relative to this one) are where its walk went from here. A line whose
	// rest is the same bytes goes the same way: see fastCache.match.
	tailLeaf *fastLeaf
	tail     []byte
	lit      string
	leaf     *fastLeaf // the segment ends the line
	next     *fastNode // the segment is followed by a field…
	val      []byte    // …which was this word last time…
	kind     uint8     // …of this kind
	// churn counts the lines in a row whose field here was another word
	// than val: from fastChurn on, val is neither compared nor kept (a
	// clock's milliseconds change on every line) until churn wraps to 0.
	churn uint8
	// valWord is val's first 8 bytes (little endian) and valMask the bits
	// val fills.
	valWord, valMask uint64
	hits             int64
	shared           int
	tailKinds        []uint8
	tailSegs         []int32
}

// fastLeaf is a template of the trie.
type fastLeaf struct {
	key     string
	control bool          // the line ends in control characters
	stat    *templateStat // the part's entry; nil: the table refused it
	// The template's first level word: in segment levelSeg (-1: none) at
	// levelOff, naming level.
	levelSeg, levelOff, level int
}

// reset empties the trie (a new part has a new table).
func (c *fastCache) reset() {
	c.root = fastNode{}
	c.edges, c.hits, c.misses, c.off = 0, 0, 0, false
	c.tailHits, c.tailBytes = 0, 0
	c.steps, c.headLen = 0, 0
}

// match walks the trie with a line (without its '\n'). It returns the line's
// template and level when the trie leads to one; c.kinds then holds the
// line's field kinds.
//
// A segment may remember a tail: the rest of a line from that segment on,
// and where the walk of that line went from there (its template, its fields'
// kinds, its segments' starts). The walk from a node depends only on the
// node and the rest of the line (only one segment of a node fits a line, a
// field's kind is that of its word, and the trie only grows), so a line whose
// rest from that segment is the same bytes ends the same way: one memequal
// instead of a segment and a field at a time. The tail kept is that of the
// segment after which every field of the line was the same word as on the
// line before through the same segment (a clock's fields change on every
// line, a template's constant tail does not).
func (c *fastCache) match(text []byte) (leaf *fastLeaf, level int) {
	if c.off {
		return nil, LevelNone
	}
	end := len(text)
	for end > 0 && isControl(text[end-1]) {
		end--
	}
	control := end < len(text)
	line := text[:end]
	n := len(line)
	fields := 0
	node := &c.root
	e := 0
	// Resume after the last field that ended, its end byte included,
	// inside the prefix this line shares with the line before: the walk
	// examined only those bytes to get there, and only one path fits them.
	if c.steps > 0 {
		cp := commonPrefixBytes(line, c.head[:c.headLen])
		for fields < c.steps && int(c.stepEnd[fields]) < cp {
			fields++
		}
		if fields > 0 {
			node, e = c.stepNode[fields-1], int(c.stepEnd[fields-1])
		}
	}
	steps := fields
	// cand is the first segment of the line's stable rest (candE where it
	// starts, candF the fields before it): its tail to keep.
	var cand *fastEdge
	candE, candF := 0, 0
walk:
	for node != nil {
		rest := line[e:]
		for i := range node.edges {
			ed := &node.edges[i]
			probed := ed.probeAt+8 <= len(rest)
			if probed && binary.LittleEndian.Uint64(rest[ed.probeAt:])&ed.probeMask != ed.probe {
				continue // the bytes where this segment differs from its siblings
			}
			if ed.tailLeaf != nil && len(ed.tail) == len(rest) && ed.tailLeaf.control == control && string(rest) == string(ed.tail) {
				if fields+len(ed.tailKinds) > len(c.kinds) {
					break walk
				}
				copy(c.kinds[fields:], ed.tailKinds)
				for j, sg := range ed.tailSegs {
					c.segs[fields+j] = int32(e) + sg
				}
				fields += len(ed.tailKinds)
				leaf, cand = ed.tailLeaf, nil
				c.tailHits++
				ed.hit(node, i)
				break walk
			}
			// A probe of a segment of at most 8 bytes compared all of them.
			if !(probed && len(ed.lit) <= 8) && (len(rest) < len(ed.lit) || string(rest[:len(ed.lit)]) != ed.lit) {
				continue
			}
			q := e + len(ed.lit)
			if ed.leaf != nil {
				if q != n || ed.leaf.control != control {
					continue
				}
				leaf = ed.leaf
				c.segs[fields] = int32(e)
				ed.hit(node, i)
				break walk
			}
			var kind uint8
			same := false
			fe := q + len(ed.val)
			if ed.churn < fastChurn && len(ed.val) > 0 && fe <= n && (fe == n || class[line[fe]]&clsWord == 0) &&
				(len(ed.val) <= 8 && q+8 <= n && binary.LittleEndian.Uint64(line[q:])&ed.valMask == ed.valWord ||
					string(line[q:fe]) == string(ed.val)) {
				kind, same = ed.kind, true // the same word as last time
				ed.churn = 0
			} else {
				f := uint8(0)
				for fe = q; fe < n; fe++ {
					k := class[line[fe]]
					if k&clsWord == 0 {
						break
					}
					f |= k
				}
				if fe == q || (f&clsDigit == 0 && !(fe-q == 36 && isUUID(line[q:fe]))) {
					continue
				}
				kind = fieldKind(line[q:fe], f)
				if ed.churn < fastChurn && fe-q <= fastMaxVal {
					ed.val, ed.kind = append(ed.val[:0], line[q:fe]...), kind
					if w := fe - q; w < 8 && q+8 <= n {
						ed.valMask = 1<<(8*w) - 1
						ed.valWord = binary.LittleEndian.Uint64(line[q:]) & ed.valMask
					} else {
						ed.valWord, ed.valMask = fastWord(ed.val)
					}
				}
				ed.churn++ // wraps to 0: then val is tried again
			}
			if fields == len(c.kinds) {
				break walk
			}
			c.kinds[fields], c.segs[fields] = kind, int32(e)
			next := ed.next
			if fields < fastResume {
				c.stepNode[fields], c.stepEnd[fields] = next, int32(fe)
				steps = fields + 1
			}
			ed = ed.hit(node, i)
			switch {
			case !same:
				cand = nil
			case cand == nil:
				cand, candE, candF = ed, e, fields
			}
			fields++
			e = fe
			node = next
			continue walk
		}
		break
	}
	c.fields = fields
	c.steps = min(steps, fastResume)
	c.headLen = copy(c.head[:], line)
	if leaf == nil {
		c.misses++
		if c.misses > 4096 && c.misses > c.hits {
			c.off = true
		}
		return nil, LevelNone
	}
	c.hits++
	if cand != nil {
		c.keepTail(cand, leaf, line[candE:], candE, candF)
	}
	level = logline.Klog(line)
	if level == LevelNone && leaf.levelSeg >= 0 && int(c.segs[leaf.levelSeg])+leaf.levelOff < levelScan {
		level = leaf.level
	}
	return leaf, level
}

// Bounds of the tails: the longest a segment keeps, and the bytes a trie
// keeps in all (the tails, their kinds and their segment starts). fastChurn is how many lines in a row a field may change
// before its segment stops comparing it with the word before.
const (
	fastMaxTail    = 1024
	fastTailBudget = 256 << 10
	fastChurn      = 8
)

// keepTail makes rest (the line from its segment ed on, at byte e after
// fields fields) ed's tail, with the walk's answer from there: leaf, the
// kinds of the fields after e and the starts of the segments from ed on.
func (c *fastCache) keepTail(ed *fastEdge, leaf *fastLeaf, rest []byte, e, fields int) {
	if len(rest) > fastMaxTail {
		return
	}
	if grow := len(rest) + 5*(c.fields-fields) + 4; cap(ed.tail) < len(rest) || cap(ed.tailKinds) < c.fields-fields {
		if c.tailBytes+grow > fastTailBudget {
			return
		}
		c.tailBytes += grow
	}
	ed.tail = append(ed.tail[:0], rest...)
	ed.tailLeaf = leaf
	ed.tailKinds = append(ed.tailKinds[:0], c.kinds[fields:c.fields]...)
	ed.tailSegs = ed.tailSegs[:0]
	for j := fields; j <= c.fields; j++ {
		ed.tailSegs = append(ed.tailSegs, c.segs[j]-int32(e))
	}
}

// hit counts a use of edge i of node and moves it before a less used
// neighbour, so that the frequent segments are tried first. It returns
// where the edge is then.
func (ed *fastEdge) hit(node *fastNode, i int) *fastEdge {
	if len(node.edges) == 1 {
		return ed
	}
	ed.hits++
	if i > 0 && node.edges[i-1].hits < ed.hits {
		node.edges[i-1], node.edges[i] = node.edges[i], node.edges[i-1]
		return &node.edges[i-1]
	}
	return ed
}

// insert adds the template key (from mask) whose entry in the part's table is
// stat (nil when the table refused it). It returns false when the trie is
// full, or the template would add a segment where fastMaxSiblings are.
func (c *fastCache) insert(key []byte, stat *templateStat) bool {
	if c.edges >= fastMaxEdges || c.off {
		return false
	}
	leaf := &fastLeaf{key: string(key), stat: stat, levelSeg: -1, level: LevelNone}
	if len(key) > 0 && key[len(key)-1] == controlMarker {
		leaf.control = true
		key = key[:len(key)-1]
	}
	node := &c.root
	seg, from := 0, 0
	for i := 0; i <= len(key); i++ {
		if i < len(key) && key[i] != fieldMarker {
			continue
		}
		lit := key[from:i]
		if leaf.levelSeg < 0 {
			if off, level, ok := firstLevelWord(lit); ok {
				leaf.levelSeg, leaf.levelOff, leaf.level = seg, off, level
			}
		}
		if i == len(key) {
			for _, ed := range node.edges {
				if ed.leaf != nil && ed.lit == string(lit) && ed.leaf.control == leaf.control {
					return true // already there
				}
			}
			if len(node.edges) >= fastMaxSiblings {
				return false
			}
			node.edges = append(node.edges, fastEdge{lit: string(lit), leaf: leaf})
			node.probes()
			c.edges++
			return true
		}
		var next *fastNode
		for _, ed := range node.edges {
			if ed.next != nil && ed.lit == string(lit) {
				next = ed.next
				break
			}
		}
		if next == nil {
			if len(node.edges) >= fastMaxSiblings {
				return false
			}
			next = &fastNode{}
			node.edges = append(node.edges, fastEdge{lit: string(lit), next: next})
			node.probes()
			c.edges++
		}
		node = next
		seg, from = seg+1, i+1
	}
	return true
}

// probes places each edge's probe where its segment parts from the others:
// after the longest prefix it shares with a sibling (shared), or at its end.
// Only the last edge is new.
func (node *fastNode) probes() {
	last := len(node.edges) - 1
	nw := &node.edges[last]
	for i := range node.edges[:last] {
		ed := &node.edges[i]
		cp := commonPrefix(ed.lit, nw.lit)
		nw.shared = max(nw.shared, cp)
		if cp > ed.shared {
			ed.shared = cp
			ed.probe8()
		}
	}
	nw.probe8()
}

// probe8 sets the probe of an edge after the prefix it shares.
func (ed *fastEdge) probe8() {
	ed.probeAt = max(0, min(ed.shared, len(ed.lit)-8))
	ed.probe, ed.probeMask = fastWord([]byte(ed.lit[ed.probeAt:]))
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// fastWord returns the first 8 bytes of b as a little-endian word, and the
// mask of the bits b fills (fewer when b is shorter).
func fastWord(b []byte) (word, mask uint64) {
	if len(b) >= 8 {
		return binary.LittleEndian.Uint64(b), ^uint64(0)
	}
	for i := 0; i < len(b) && i < 8; i++ {
		word |= uint64(b[i]) << (8 * i)
		mask |= 0xff << (8 * i)
	}
	return word, mask
}

// firstLevelWord finds the first word of a literal segment that names a
// level: its offset in the segment and the level.
func firstLevelWord(lit []byte) (off, level int, ok bool) {
	for i := 0; i < len(lit); {
		if class[lit[i]]&clsWord == 0 {
			i++
			continue
		}
		s := i
		for i++; i < len(lit) && class[lit[i]]&clsWord != 0; i++ {
		}
		if l := logline.Word(lit[s:i]); l != LevelNone {
			return s, l, true
		}
	}
	return 0, LevelNone, false
}
