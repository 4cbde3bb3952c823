package hprof

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"unsafe"
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
// NewReport ran, every step of its suspects' paths from a GC root; then what
// the views read: each class's counts by reachability and what its instances
// retain, the top-level objects grouped by class, each object's step on its
// shortest path from a GC root (with its field when NewReport ran), and the
// GC roots. It writes through a buffer, reading the heap's arrays front to
// back; what it allocates besides (the top-level objects' order) is charged
// to the budget.
func (h *Heap) WriteIndex(w io.Writer) (written int64, err error) {
	if !h.analyzed {
		return 0, errors.New("hprof: WriteIndex before Analyze")
	}
	if err := h.report(stageWriteIndex, 0, 0); err != nil {
		return 0, err
	}
	n := uint32(len(h.ids))
	rs := &h.rs
	if len(h.classStats) > 0 && h.classStats[0].retained < 0 {
		// The histogram was not made: make it, for what each class retains.
		if _, _, _, err := h.histogram(); err != nil {
			return 0, err
		}
	}
	groups, members, err := h.topGroups()
	if err != nil {
		return 0, err
	}
	defer func() { free(rs, members) }()
	hd := indexHeader{indexHeaderV2: indexHeaderV2{indexHeaderV1: indexHeaderV1{Version: indexVersion, Classes: uint32(len(h.Classes)), Objects: uint64(n),
		TotalRetained: uint64(h.TotalRetained())}}}
	copy(hd.Magic[:], indexMagic)
	hd.Reachable = uint64(len(h.domKids.targets))
	hd.IDWidth, hd.IDBase, hd.IDShift = h.idEncoding()
	hd.TimeMillis, hd.IDSize, hd.Roots = h.Time.UnixMilli(), uint32(h.IDSize), uint32(len(h.Roots))
	for _, c := range h.classStats {
		for _, r := range c.reach {
			hd.Shallow += uint64(r.Bytes)
		}
	}
	texts := h.indexTexts()
	var big []uint32
	for o := range h.bigSize {
		big = append(big, o)
	}
	slices.Sort(big)
	roots := slices.Clone(h.Roots)
	slices.SortStableFunc(roots, func(a, b Root) int { return cmpUint32(a.Ordinal, b.Ordinal) })

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
	next(&hd.ClassInfo, classEntry*uint64(len(h.Classes)))
	next(&hd.TopGroups, groupEntry*uint64(len(groups)))
	next(&hd.TopMembers, 4*uint64(len(members)))
	next(&hd.ObjectPaths, objectPathEntry*uint64(n))
	next(&hd.GCRoots, rootEntry*uint64(len(roots)))

	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 256<<10)
	var buf [classEntry]byte
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
	// The records, the arrays read front to back.
	seqs := []sequence{scan(rs, h.idom), scan(rs, h.class), scan(rs, h.size), scan(rs, h.retained), scan(rs, h.ids), scan(rs, h.domKids.offsets)}
	for o := uint32(0); o <= n; o++ {
		if o&cancelCheckMask == 0 {
			for i := range seqs {
				seqs[i].at(int(o))
			}
			if err := h.report(stageWriteIndex, 0.5*float64(o)/float64(n+1), 0); err != nil {
				return 0, err
			}
		}
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
	for i := range seqs {
		seqs[i].end()
	}
	q := scan(rs, h.domKids.targets)
	for i, k := range h.domKids.targets {
		put32(k)
		if i&cancelCheckMask == 0 {
			q.at(i)
		}
	}
	q.end()
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
	qd, qt := scan(rs, h.depth), scan(rs, h.top)
	for o := range n {
		le.PutUint32(buf[0:], h.depth[o])
		le.PutUint32(buf[4:], h.top[o])
		bw.Write(buf[:ancestryEntry])
		if o&cancelCheckMask == 0 {
			qd.at(int(o))
			qt.at(int(o))
			if err := h.report(stageWriteIndex, 0.5+0.2*float64(o)/float64(n), 0); err != nil {
				return 0, err
			}
		}
	}
	qd.end()
	qt.end()
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
	// What the views read.
	for ci, c := range h.Classes {
		clear(buf[:])
		le.PutUint32(buf[0:], c.loader)
		le.PutUint32(buf[4:], noObject)
		if c.ordinal != noObject && int(c.ordinal) < len(h.ids) && c.kind != objClass {
			le.PutUint32(buf[4:], c.ordinal)
		}
		retained := int64(-1)
		if ci < len(h.classStats) {
			st := h.classStats[ci]
			for r, v := range st.reach {
				le.PutUint64(buf[8+16*r:], uint64(v.Count))
				le.PutUint64(buf[16+16*r:], uint64(v.Bytes))
			}
			retained = st.retained
		}
		le.PutUint64(buf[72:], uint64(retained))
		bw.Write(buf[:classEntry])
	}
	for _, g := range groups {
		clear(buf[:groupEntry])
		le.PutUint32(buf[0:], g.class)
		le.PutUint32(buf[4:], g.count)
		le.PutUint32(buf[8:], g.first)
		le.PutUint64(buf[16:], uint64(g.shallow))
		le.PutUint64(buf[24:], uint64(g.retained))
		bw.Write(buf[:groupEntry])
	}
	for _, o := range members {
		put32(o)
	}
	qp := []sequence{scan(rs, h.bfs), scan(rs, h.pathVia), scan(rs, h.pathDepth), scan(rs, h.pathRoot)}
	for o := range n {
		parent, via, depth, root := h.bfs[o], viaUnknown, h.pathDepth[o], h.pathRoot[o]
		if h.pathVia != nil {
			via = h.pathVia[o]
		}
		le.PutUint32(buf[0:], parent)
		le.PutUint32(buf[4:], via)
		le.PutUint32(buf[8:], depth)
		le.PutUint32(buf[12:], root)
		bw.Write(buf[:objectPathEntry])
		if o&cancelCheckMask == 0 {
			for i := range qp {
				qp[i].at(int(o))
			}
			if err := h.report(stageWriteIndex, 0.7+0.3*float64(o)/float64(n), 0); err != nil {
				return 0, err
			}
		}
	}
	for i := range qp {
		qp[i].end()
	}
	for _, r := range roots {
		thread := noObject
		switch r.Kind {
		case RootThreadObject:
			thread = r.Ordinal
		case RootJavaFrame, RootJNILocal, RootNativeStack, RootThreadBlock:
			if t, ok := h.threadObjs[r.Thread]; ok {
				thread = t
			}
		}
		le.PutUint32(buf[0:], r.Ordinal)
		le.PutUint32(buf[4:], uint32(r.Kind))
		le.PutUint32(buf[8:], thread)
		bw.Write(buf[:rootEntry])
	}
	if err := bw.Flush(); err != nil {
		return cw.n, err
	}
	if uint64(cw.n) != at {
		return cw.n, fmt.Errorf("hprof: wrote %d index bytes, planned %d", cw.n, at)
	}
	if err := h.report(stageWriteIndex, 1, 0); err != nil {
		return cw.n, err
	}
	return cw.n, nil
}

// topGroup is the top-level objects of one class.
type topGroup struct {
	class, count, first uint32
	shallow, retained   int64
}

// topGroups groups the top-level objects of the dominator tree by class:
// the groups, largest retained first, and the objects by group, each
// group's largest first (a scratch array the caller frees).
func (h *Heap) topGroups() ([]topGroup, []uint32, error) {
	rs := &h.rs
	top := h.Dominated(0, true)
	members, err := makeArray[uint32](rs, len(top), scratch, "the top-level objects by class")
	if err != nil {
		return nil, nil, err
	}
	copy(members, top)
	for _, err := range []error{hold(rs, h.class), hold(rs, h.retained), hold(rs, h.size)} {
		if err != nil {
			free(rs, members)
			return nil, nil, err
		}
	}
	defer func() {
		release(rs, h.class)
		release(rs, h.retained)
		release(rs, h.size)
	}()
	// The children of the root are by retained size already: a stable sort
	// by class keeps that order within each class.
	if err := sortStoppable(h, members, func(a, b uint32) int {
		if c := cmpUint32(h.class[a], h.class[b]); c != 0 {
			return c
		}
		return cmpDesc(h.Retained(a), h.Retained(b), int64(b), int64(a))
	}); err != nil {
		free(rs, members)
		return nil, nil, err
	}
	var groups []topGroup
	for i, o := range members {
		cn := h.class[o]
		if len(groups) == 0 || groups[len(groups)-1].class != cn {
			h.mem.chargeSmall(int64(unsafe.Sizeof(topGroup{})), "the top-level objects by class")
			groups = append(groups, topGroup{class: cn, first: uint32(i)})
		}
		g := &groups[len(groups)-1]
		g.count++
		g.shallow += h.ShallowSize(o)
		g.retained += h.Retained(o)
	}
	if err := h.mem.flush(); err != nil {
		free(rs, members)
		return nil, nil, err
	}
	slices.SortStableFunc(groups, func(a, b topGroup) int { return cmpDesc(a.retained, b.retained, int64(a.count), int64(b.count)) })
	return groups, members, nil
}

// idEncoding chooses how records store identifiers: in 4 bytes as
// (id-base)>>shift when every identifier fits (object addresses are aligned and
// most heaps are below 32 GiB), else in 8.
func (h *Heap) idEncoding() (width uint32, base uint64, shift uint32) {
	if len(h.ids) == 0 {
		return 4, 0, 0
	}
	lo, hi := h.ids[0], h.ids[0]
	q := scan(&h.rs, h.ids)
	for i, id := range h.ids {
		lo, hi = min(lo, id), max(hi, id)
		if i&cancelCheckMask == 0 {
			q.at(i)
		}
	}
	q.end()
	var or uint64
	for i, id := range h.ids {
		or |= id - lo
		if i&cancelCheckMask == 0 {
			q.at(i)
		}
	}
	q.end()
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
