package hprof

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
)

// WriteIndex writes the dominator tree of an analyzed heap (after Analyze) to w in
// the format OpenIndex reads, and returns the bytes written. Every object is a
// fixed-width record by ordinal (its identifier, class, shallow and retained sizes,
// immediate dominator and where its children start) and the children of every node
// follow in one array, largest retained first, so a page of children is a few
// small reads. The texts stored are those of the class objects ("class NAME") and,
// when NewReport ran, those the report shows (strings of its dominator tree and
// suspects, thread names); other objects have none. Each object's depth in the
// dominator tree and the top-level object above it follow, and, when
// NewReport ran, every step of its suspects' paths from a GC root. It writes
// through a buffer; beyond the class names and texts, what it allocates (12
// bytes an object while it works out the depths) is charged to the budget.
func (h *Heap) WriteIndex(w io.Writer) (int64, error) {
	if !h.analyzed {
		return 0, errors.New("hprof: WriteIndex before Analyze")
	}
	n := uint32(len(h.ids))
	depth, top, err := h.ancestry()
	if err != nil {
		return 0, err
	}
	defer h.mem.uncharge(8 * int64(n))
	hd := indexHeader{indexHeaderV1: indexHeaderV1{Version: indexVersion, Classes: uint32(len(h.Classes)), Objects: uint64(n),
		TotalRetained: uint64(h.TotalRetained())}}
	copy(hd.Magic[:], indexMagic)
	for _, d := range h.idom {
		if d != noObject {
			hd.Reachable++
		}
	}
	hd.IDWidth, hd.IDBase, hd.IDShift = h.idEncoding()
	texts := h.indexTexts()
	var big []uint32
	for o := range h.bigSize {
		big = append(big, o)
	}
	slices.Sort(big)

	var namesLen, textLen, steps, pathNamesLen uint64
	for _, c := range h.Classes {
		namesLen += uint64(len(c.Name))
	}
	for _, t := range texts {
		textLen += uint64(len(t.text))
	}
	names := slices.Concat(h.pathNames, nil)
	rootName := make([]uint32, len(h.paths))
	for i, p := range h.paths {
		steps += uint64(p.length)
		rootName[i] = uint32(len(names))
		names = append(names, p.root)
	}
	for _, s := range names {
		pathNamesLen += 4 + uint64(len(s))
	}
	if namesLen > 1<<32-1 || textLen > 1<<32-1 {
		return 0, errors.New("hprof: class names or texts beyond 4 GiB")
	}
	at := uint64(indexHeaderSize)
	next := func(s *section, length uint64) {
		*s = section{Offset: at, Length: length}
		at += length
	}
	next(&hd.ClassOffsets, 4*uint64(len(h.Classes)+1))
	next(&hd.ClassNames, namesLen)
	next(&hd.Records, uint64(n+1)*uint64(recordFixed+hd.IDWidth))
	next(&hd.Kids, 4*uint64(len(h.domKids.targets)))
	next(&hd.BigShallow, bigEntry*uint64(len(big)))
	next(&hd.TextIndex, textEntry*uint64(len(texts)))
	next(&hd.TextBlob, textLen)
	next(&hd.Ancestry, ancestryEntry*uint64(n))
	next(&hd.Paths, pathEntrySize*uint64(len(h.paths)))
	next(&hd.PathSteps, stepEntry*steps)
	next(&hd.PathNames, pathNamesLen)

	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 256<<10)
	var buf [recordFixed + 8]byte
	put32 := func(v uint32) { le.PutUint32(buf[:4], v); bw.Write(buf[:4]) }

	hb := make([]byte, 0, indexHeaderSize)
	hb, err = binary.Append(hb, le, &hd)
	if err != nil {
		return 0, err
	}
	bw.Write(hb)
	var off uint32
	for _, c := range h.Classes {
		put32(off)
		off += uint32(len(c.Name))
	}
	put32(off)
	for _, c := range h.Classes {
		bw.WriteString(c.Name)
	}
	hasText := make(map[uint32]bool, len(texts))
	for _, t := range texts {
		hasText[t.ordinal] = true
	}
	for o := uint32(0); o <= n; o++ {
		var idom, cls, shallow uint32 = noObject, 0, 0
		var retained, id uint64
		if o < n {
			idom, cls, shallow, retained = h.idom[o], h.class[o], h.size[o], h.retained[o]
			if hasText[o] {
				cls |= textFlag
			}
			id = h.ids[o]
		} else {
			retained = h.retained[n]
		}
		le.PutUint32(buf[0:], h.domKids.offsets[o])
		le.PutUint32(buf[4:], idom)
		le.PutUint32(buf[8:], cls)
		le.PutUint32(buf[12:], shallow)
		le.PutUint64(buf[16:], retained)
		if hd.IDWidth == 4 {
			le.PutUint32(buf[recordFixed:], uint32((id-min(id, hd.IDBase))>>hd.IDShift))
		} else {
			le.PutUint64(buf[recordFixed:], id)
		}
		bw.Write(buf[:recordFixed+hd.IDWidth])
	}
	for _, k := range h.domKids.targets {
		put32(k)
	}
	for _, o := range big {
		le.PutUint32(buf[0:], o)
		le.PutUint64(buf[4:], uint64(h.bigSize[o]))
		bw.Write(buf[:bigEntry])
	}
	off = 0
	for _, t := range texts {
		le.PutUint32(buf[0:], t.ordinal)
		le.PutUint32(buf[4:], off)
		le.PutUint32(buf[8:], uint32(len(t.text)))
		bw.Write(buf[:textEntry])
		off += uint32(len(t.text))
	}
	for _, t := range texts {
		bw.WriteString(t.text)
	}
	for o := range n {
		le.PutUint32(buf[0:], depth[o])
		le.PutUint32(buf[4:], top[o])
		bw.Write(buf[:ancestryEntry])
	}
	depth, top = nil, nil
	var first uint64
	for i, p := range h.paths {
		le.PutUint32(buf[0:], p.point)
		le.PutUint32(buf[4:], uint32(p.length))
		le.PutUint64(buf[8:], first)
		le.PutUint32(buf[16:], rootName[i])
		bw.Write(buf[:pathEntrySize])
		first += uint64(p.length)
	}
	for i := range h.paths {
		p := &h.paths[i]
		pos := p.length - 1
		for x := p.point; x != n && pos >= 0; x = h.bfs[x] {
			le.PutUint32(buf[0:], x)
			le.PutUint32(buf[4:], h.stepVia(p, pos))
			bw.Write(buf[:stepEntry])
			pos--
		}
	}
	for _, s := range names {
		put32(uint32(len(s)))
		bw.WriteString(s)
	}
	if err := bw.Flush(); err != nil {
		return cw.n, err
	}
	if uint64(cw.n) != at {
		return cw.n, fmt.Errorf("hprof: wrote %d index bytes, planned %d", cw.n, at)
	}
	return cw.n, nil
}

// ancestry is each object's depth in the dominator tree (1 for a top-level
// object, 0 when unreachable) and the top-level object above it (noObject when
// unreachable), worked out top down in breadth-first order. The two arrays are
// charged to the budget (WriteIndex gives them back), and the queue while it
// works.
func (h *Heap) ancestry() (depth, top []uint32, err error) {
	n := uint32(len(h.ids))
	if err := h.mem.charge(12*int64(n), "the depths of the dominator tree"); err != nil {
		return nil, nil, err
	}
	defer h.mem.uncharge(4 * int64(n))
	depth, top = make([]uint32, n), make([]uint32, n)
	for o := range top {
		top[o] = noObject
	}
	queue := make([]uint32, 0, n)
	for _, o := range h.domKids.row(n) {
		depth[o], top[o] = 1, o
		queue = append(queue, o)
	}
	for i := 0; i < len(queue); i++ {
		o := queue[i]
		for _, k := range h.domKids.row(o) {
			depth[k], top[k] = depth[o]+1, top[o]
			queue = append(queue, k)
		}
	}
	return depth, top, nil
}

// idEncoding chooses how records store identifiers: in 4 bytes as
// (id-base)>>shift when every identifier fits (object addresses are aligned and
// most heaps are below 32 GiB), else in 8.
func (h *Heap) idEncoding() (width uint32, base uint64, shift uint32) {
	if len(h.ids) == 0 {
		return 4, 0, 0
	}
	lo, hi := h.ids[0], h.ids[0]
	for _, id := range h.ids {
		lo, hi = min(lo, id), max(hi, id)
	}
	var or uint64
	for _, id := range h.ids {
		or |= id - lo
	}
	if or != 0 {
		shift = uint32(bits.TrailingZeros64(or))
	}
	if (hi-lo)>>shift > 1<<32-1 {
		return 8, 0, 0
	}
	return 4, lo, shift
}

// indexText is the text of one object in the index.
type indexText struct {
	ordinal uint32
	text    string
}

// indexTexts are the texts WriteIndex stores, by ordinal: the class objects' and
// the report's.
func (h *Heap) indexTexts() []indexText {
	byOrd := map[uint32]string{}
	for o, t := range h.texts {
		byOrd[o] = t
	}
	for _, c := range h.Classes {
		if c.ordinal != noObject && int(c.ordinal) < len(h.ids) && h.ClassOf(c.ordinal).kind == objClass {
			byOrd[c.ordinal] = "class " + c.Name
		}
	}
	out := make([]indexText, 0, len(byOrd))
	for o, t := range byOrd {
		out = append(out, indexText{o, t})
	}
	slices.SortFunc(out, func(a, b indexText) int { return int(int64(a.ordinal) - int64(b.ordinal)) })
	return out
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	k, err := c.w.Write(p)
	c.n += int64(k)
	return k, err
}
