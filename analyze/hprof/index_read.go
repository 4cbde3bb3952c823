package hprof

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/leakui/leakui/analyze"
)

// Index is a dominator tree read on demand from a stored index (Heap.WriteIndex):
// OpenIndex reads the header, the class names and the list of objects of 4 GiB or
// more; every other answer reads a few records from the index. Node numbers are
// the dump's ordinals (Object.Ordinal of a Report), and IndexRoot for the virtual
// root above the GC roots. An Index is safe for concurrent use if its ReaderAt is.
type Index struct {
	r       io.ReaderAt
	hd      indexHeader
	recSize uint64
	kids    uint64 // entries of the kids section
	classes []string
	big     []bigShallow
	paths   []pathEntry // empty in a version 1 index
	names   []string    // the names of the paths' vias and roots
}

// pathEntry is one decoded entry of the paths section.
type pathEntry struct {
	point, length uint32
	first         uint64
	root          uint32
}

type bigShallow struct {
	ordinal uint32
	size    int64
}

// indexRecord is one decoded record.
type indexRecord struct {
	kidsStart, kidsEnd uint32
	idom, class        uint32
	hasText            bool
	shallow            int64
	retained           uint64
	id                 uint64
}

// malformedIndex is an ErrMalformed error about an index.
func malformedIndex(format string, args ...any) error {
	return fmt.Errorf("%w: heap dump index: %s", analyze.ErrMalformed, fmt.Sprintf(format, args...))
}

// OpenIndex reads the header of an index size bytes long; nodes are read from r as
// they are asked for. A malformed index is an error wrapping analyze.ErrMalformed,
// never a panic, and what OpenIndex allocates is bounded by size.
func OpenIndex(r io.ReaderAt, size int64) (*Index, error) {
	if size < int64(indexHeaderSize) {
		return nil, malformedIndex("%d bytes, shorter than its header", size)
	}
	x := &Index{r: r}
	hb := make([]byte, indexHeaderV1Size)
	if err := x.readAt(hb, 0); err != nil {
		return nil, err
	}
	if _, err := binary.Decode(hb, le, &x.hd.indexHeaderV1); err != nil {
		return nil, malformedIndex("header: %v", err)
	}
	hd := &x.hd
	if string(hd.Magic[:]) != indexMagic {
		return nil, malformedIndex("not an index (magic %q)", hd.Magic[:])
	}
	if hd.Version < 1 || hd.Version > indexVersion {
		return nil, malformedIndex("version %d, this program reads 1 to %d", hd.Version, indexVersion)
	}
	headerSize := indexHeaderV1Size
	if hd.Version >= 2 {
		headerSize = indexHeaderV2Size
		if hd.Version >= 3 {
			headerSize = indexHeaderSize
		}
		if size < int64(headerSize) {
			return nil, malformedIndex("%d bytes, shorter than its header", size)
		}
		hb = make([]byte, headerSize)
		if err := x.readAt(hb, 0); err != nil {
			return nil, err
		}
		var err error
		if hd.Version >= 3 {
			_, err = binary.Decode(hb, le, &x.hd)
		} else {
			_, err = binary.Decode(hb, le, &x.hd.indexHeaderV2)
		}
		if err != nil {
			return nil, malformedIndex("header: %v", err)
		}
	}
	if hd.IDWidth != 4 && hd.IDWidth != 8 || hd.IDShift >= 64 {
		return nil, malformedIndex("identifier width %d, shift %d", hd.IDWidth, hd.IDShift)
	}
	if hd.Objects >= uint64(noObject)-1 || hd.Reachable > hd.Objects {
		return nil, malformedIndex("%d objects, %d reachable", hd.Objects, hd.Reachable)
	}
	for _, s := range []struct {
		name  string
		s     section
		since uint32 // the version that added it
	}{{"class offsets", hd.ClassOffsets, 1}, {"class names", hd.ClassNames, 1}, {"records", hd.Records, 1},
		{"children", hd.Kids, 1}, {"big objects", hd.BigShallow, 1}, {"text index", hd.TextIndex, 1}, {"texts", hd.TextBlob, 1},
		{"ancestry", hd.Ancestry, 2}, {"paths", hd.Paths, 2}, {"path steps", hd.PathSteps, 2}, {"path names", hd.PathNames, 2},
		{"class info", hd.ClassInfo, 3}, {"top groups", hd.TopGroups, 3}, {"top members", hd.TopMembers, 3},
		{"object paths", hd.ObjectPaths, 3}, {"GC roots", hd.GCRoots, 3}} {
		if hd.Version < s.since {
			continue // a section this version does not have (zero: not decoded)
		}
		if s.s.Offset < uint64(headerSize) || s.s.Offset > uint64(size) || s.s.Length > uint64(size)-s.s.Offset {
			return nil, malformedIndex("the %s section (%d bytes at %d) is outside the %d bytes of the index", s.name, s.s.Length, s.s.Offset, size)
		}
	}
	x.recSize = recordFixed + uint64(hd.IDWidth)
	switch {
	case hd.ClassOffsets.Length != 4*(uint64(hd.Classes)+1):
		return nil, malformedIndex("%d bytes of class offsets for %d classes", hd.ClassOffsets.Length, hd.Classes)
	case hd.Records.Length != (hd.Objects+1)*x.recSize:
		return nil, malformedIndex("%d bytes of records for %d objects", hd.Records.Length, hd.Objects)
	case hd.Kids.Length%4 != 0 || hd.BigShallow.Length%bigEntry != 0 || hd.TextIndex.Length%textEntry != 0:
		return nil, malformedIndex("a section's length is not a whole number of entries")
	case hd.ClassNames.Length > 1<<32-1 || hd.TextBlob.Length > 1<<32-1:
		return nil, malformedIndex("class names or texts beyond 4 GiB")
	case hd.Version >= 2 && hd.Ancestry.Length != ancestryEntry*hd.Objects:
		return nil, malformedIndex("%d bytes of ancestry for %d objects", hd.Ancestry.Length, hd.Objects)
	case hd.Paths.Length%pathEntrySize != 0 || hd.PathSteps.Length%stepEntry != 0:
		return nil, malformedIndex("a section's length is not a whole number of entries")
	case hd.Version >= 3 && (hd.ClassInfo.Length != classEntry*uint64(hd.Classes) || hd.ObjectPaths.Length != objectPathEntry*hd.Objects):
		return nil, malformedIndex("%d bytes of class info for %d classes, %d of paths for %d objects", hd.ClassInfo.Length, hd.Classes, hd.ObjectPaths.Length, hd.Objects)
	case hd.TopGroups.Length%groupEntry != 0 || hd.TopMembers.Length%4 != 0 || hd.GCRoots.Length%rootEntry != 0:
		return nil, malformedIndex("a section's length is not a whole number of entries")
	}
	x.kids = hd.Kids.Length / 4
	if err := x.readClasses(); err != nil {
		return nil, err
	}
	if err := x.readBig(); err != nil {
		return nil, err
	}
	if err := x.readPaths(); err != nil {
		return nil, err
	}
	return x, nil
}

// readPaths reads the paths section and the names their steps use.
func (x *Index) readPaths() error {
	b := make([]byte, x.hd.PathNames.Length)
	if err := x.readAt(b, x.hd.PathNames.Offset); err != nil {
		return err
	}
	for len(b) > 0 {
		if len(b) < 4 || uint64(le.Uint32(b)) > uint64(len(b)-4) {
			return malformedIndex("path name %d runs past its section", len(x.names))
		}
		k := le.Uint32(b)
		x.names = append(x.names, string(bytes.ToValidUTF8(b[4:4+k], []byte("\uFFFD"))))
		b = b[4+k:]
	}
	b = make([]byte, x.hd.Paths.Length)
	if err := x.readAt(b, x.hd.Paths.Offset); err != nil {
		return err
	}
	steps := x.hd.PathSteps.Length / stepEntry
	for i := 0; i < len(b); i += pathEntrySize {
		p := pathEntry{point: le.Uint32(b[i:]), length: le.Uint32(b[i+4:]), first: le.Uint64(b[i+8:]), root: le.Uint32(b[i+16:])}
		if uint64(p.point) >= x.hd.Objects || p.first > steps || uint64(p.length) > steps-p.first || int(p.root) >= len(x.names) {
			return malformedIndex("path %d", len(x.paths))
		}
		x.paths = append(x.paths, p)
	}
	return nil
}

func (x *Index) readClasses() error {
	offs := make([]byte, x.hd.ClassOffsets.Length)
	if err := x.readAt(offs, x.hd.ClassOffsets.Offset); err != nil {
		return err
	}
	names := make([]byte, x.hd.ClassNames.Length)
	if err := x.readAt(names, x.hd.ClassNames.Offset); err != nil {
		return err
	}
	x.classes = make([]string, x.hd.Classes)
	prev := le.Uint32(offs)
	if prev != 0 {
		return malformedIndex("class names start at %d", prev)
	}
	for c := range x.classes {
		end := le.Uint32(offs[4*(c+1):])
		if end < prev || uint64(end) > uint64(len(names)) {
			return malformedIndex("class %d's name at %d–%d of %d bytes", c, prev, end, len(names))
		}
		x.classes[c] = string(names[prev:end])
		prev = end
	}
	return nil
}

func (x *Index) readBig() error {
	b := make([]byte, x.hd.BigShallow.Length)
	if err := x.readAt(b, x.hd.BigShallow.Offset); err != nil {
		return err
	}
	for i := 0; i < len(b); i += bigEntry {
		e := bigShallow{ordinal: le.Uint32(b[i:]), size: int64(le.Uint64(b[i+4:]))}
		if uint64(e.ordinal) >= x.hd.Objects || e.size < 0 || len(x.big) > 0 && e.ordinal <= x.big[len(x.big)-1].ordinal {
			return malformedIndex("big object entry %d", i/bigEntry)
		}
		x.big = append(x.big, e)
	}
	return nil
}

// readAt fills p from offset off, an error wrapping ErrMalformed when the index
// ends first.
func (x *Index) readAt(p []byte, off uint64) error {
	n, err := x.r.ReadAt(p, int64(off))
	if n == len(p) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return malformedIndex("cut short at %d bytes", off+uint64(n))
	}
	return err
}

// Objects is the number of objects of the dump.
func (x *Index) Objects() int { return int(x.hd.Objects) }

// Reachable is the number of objects a strong path from a GC root reaches: the
// nodes of the dominator tree below the virtual root.
func (x *Index) Reachable() int { return int(x.hd.Reachable) }

// TotalRetained is the size of every reachable object, the virtual root's
// retained size.
func (x *Index) TotalRetained() int64 { return int64(x.hd.TotalRetained) }

// record reads the record of ordinal o (Objects for the virtual root).
func (x *Index) record(o uint32) (indexRecord, error) {
	var buf [recordFixed + 8 + 4]byte
	b := buf[:x.recSize]
	if uint64(o) < x.hd.Objects {
		b = buf[:x.recSize+4] // and the next record's first child, where o's end
	}
	if err := x.readAt(b, x.hd.Records.Offset+uint64(o)*x.recSize); err != nil {
		return indexRecord{}, err
	}
	rec := indexRecord{kidsStart: le.Uint32(b), idom: le.Uint32(b[4:]), class: le.Uint32(b[8:]),
		shallow: int64(le.Uint32(b[12:])), retained: le.Uint64(b[16:])}
	if uint64(o) < x.hd.Objects {
		rec.kidsEnd = le.Uint32(b[x.recSize:])
	} else {
		rec.kidsEnd = uint32(min(x.kids, uint64(noObject)))
	}
	if x.hd.IDWidth == 4 {
		rec.id = x.hd.IDBase + uint64(le.Uint32(b[recordFixed:]))<<x.hd.IDShift
	} else {
		rec.id = le.Uint64(b[recordFixed:])
	}
	rec.hasText, rec.class = rec.class&textFlag != 0, rec.class&^textFlag
	switch {
	case rec.kidsStart > rec.kidsEnd || uint64(rec.kidsEnd) > x.kids:
		return rec, malformedIndex("object %d's children at %d–%d of %d", o, rec.kidsStart, rec.kidsEnd, x.kids)
	case uint64(o) < x.hd.Objects && rec.class >= x.hd.Classes:
		return rec, malformedIndex("object %d of class %d of %d", o, rec.class, x.hd.Classes)
	case rec.idom != noObject && uint64(rec.idom) > x.hd.Objects:
		return rec, malformedIndex("object %d's dominator %d of %d objects", o, rec.idom, x.hd.Objects)
	}
	if rec.shallow == int64(noObject) {
		if i, ok := slices.BinarySearchFunc(x.big, o, func(b bigShallow, o uint32) int { return cmpUint32(b.ordinal, o) }); ok {
			rec.shallow = x.big[i].size
		}
	}
	return rec, nil
}

func cmpUint32(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// node is the record number of node (Objects for IndexRoot), an
// ErrInvalidParameter error when no object has it.
func (x *Index) node(node uint32) (uint32, error) {
	if node == IndexRoot {
		return uint32(x.hd.Objects), nil
	}
	if uint64(node) >= x.hd.Objects {
		return 0, fmt.Errorf("%w: no object %d in a heap of %d", analyze.ErrInvalidParameter, node, x.hd.Objects)
	}
	return node, nil
}

// object describes record o.
func (x *Index) object(o uint32, rec indexRecord) (Object, error) {
	if uint64(o) == x.hd.Objects {
		return Object{Ordinal: IndexRoot, Class: "GC roots", Retained: int64(rec.retained),
			Dominated: int(rec.kidsEnd - rec.kidsStart)}, nil
	}
	obj := Object{Ordinal: o, ID: fmt.Sprintf("0x%x", rec.id), Class: x.classes[rec.class],
		Shallow: rec.shallow, Retained: int64(rec.retained), Dominated: int(rec.kidsEnd - rec.kidsStart)}
	if rec.hasText {
		t, err := x.text(o)
		if err != nil {
			return obj, err
		}
		obj.Text = t
	}
	return obj, nil
}

// text finds o's text by a binary search of the text index.
func (x *Index) text(o uint32) (string, error) {
	lo, hi := uint64(0), x.hd.TextIndex.Length/textEntry
	var e [textEntry]byte
	for lo < hi {
		m := lo + (hi-lo)/2
		if err := x.readAt(e[:], x.hd.TextIndex.Offset+m*textEntry); err != nil {
			return "", err
		}
		switch ord := le.Uint32(e[:]); {
		case ord < o:
			lo = m + 1
		case ord > o:
			hi = m
		default:
			off, n := uint64(le.Uint32(e[4:])), uint64(le.Uint32(e[8:]))
			if off > x.hd.TextBlob.Length || n > x.hd.TextBlob.Length-off {
				return "", malformedIndex("object %d's text at %d+%d of %d bytes", o, off, n, x.hd.TextBlob.Length)
			}
			b := make([]byte, n)
			if err := x.readAt(b, x.hd.TextBlob.Offset+off); err != nil {
				return "", err
			}
			return string(bytes.ToValidUTF8(b, []byte("\uFFFD"))), nil
		}
	}
	return "", nil
}

// Object returns one node: its identifier, class, sizes, text (see WriteIndex) and
// how many objects it immediately dominates. IndexRoot is the virtual root (class
// "GC roots", retaining every reachable object).
func (x *Index) Object(node uint32) (Object, error) {
	o, err := x.node(node)
	if err != nil {
		return Object{}, err
	}
	rec, err := x.record(o)
	if err != nil {
		return Object{}, err
	}
	return x.object(o, rec)
}

// Children returns the objects node immediately dominates, largest retained first,
// from offset, at most limit, and how many there are in all. It reads the node's
// record, the page's slice of the children array and each child's record.
func (x *Index) Children(node uint32, offset, limit int) (page []Object, total int, err error) {
	if offset < 0 || limit < 0 {
		return nil, 0, fmt.Errorf("%w: offset %d, limit %d", analyze.ErrInvalidParameter, offset, limit)
	}
	o, err := x.node(node)
	if err != nil {
		return nil, 0, err
	}
	rec, err := x.record(o)
	if err != nil {
		return nil, 0, err
	}
	total = int(rec.kidsEnd - rec.kidsStart)
	if offset >= total || limit == 0 {
		return []Object{}, total, nil
	}
	k := min(limit, total-offset)
	b := make([]byte, 4*k)
	if err := x.readAt(b, x.hd.Kids.Offset+4*(uint64(rec.kidsStart)+uint64(offset))); err != nil {
		return nil, 0, err
	}
	page = make([]Object, 0, k)
	for i := range k {
		c := le.Uint32(b[4*i:])
		if uint64(c) >= x.hd.Objects {
			return nil, 0, malformedIndex("child %d of object %d is %d of %d objects", offset+i, o, c, x.hd.Objects)
		}
		crec, err := x.record(c)
		if err != nil {
			return nil, 0, err
		}
		obj, err := x.object(c, crec)
		if err != nil {
			return nil, 0, err
		}
		page = append(page, obj)
	}
	return page, total, nil
}

// Chain describes the dominator chain from the top of the tree (a child of
// IndexRoot) down to node by its ends: the top, and at most ends objects down
// to node (node included), in that order, index being each one's
// position on the chain (0 for the top) and length the number of objects on
// it; the objects between the two ends are left out. An index of version 2
// knows each node's depth and top, so Chain reads a few records whatever the
// chain's length; a version 1 index is walked up to the top in O(ends)
// memory. Chain is empty for IndexRoot and an ErrInvalidParameter error for an
// unreachable node.
func (x *Index) Chain(node uint32, ends int) (objs []Object, index []int, length int, err error) {
	o, err := x.node(node)
	if err != nil || node == IndexRoot {
		return nil, nil, 0, err
	}
	ends = max(ends, 1)
	if x.hd.Version >= 2 {
		var e [ancestryEntry]byte
		if err := x.readAt(e[:], x.hd.Ancestry.Offset+uint64(o)*ancestryEntry); err != nil {
			return nil, nil, 0, err
		}
		depth, top := le.Uint32(e[:]), le.Uint32(e[4:])
		if depth == 0 {
			return nil, nil, 0, fmt.Errorf("%w: object %d is not reachable from the GC roots", analyze.ErrInvalidParameter, node)
		}
		if uint64(depth) > x.hd.Reachable || uint64(top) >= x.hd.Objects {
			return nil, nil, 0, malformedIndex("object %d at depth %d below object %d", o, depth, top)
		}
		length = int(depth)
		near, atTop, err := x.walkUp(o, min(ends, length))
		if err != nil {
			return nil, nil, 0, err
		}
		if atTop != (len(near) == length) || atTop && near[len(near)-1].Ordinal != top {
			return nil, nil, 0, malformedIndex("object %d's dominator chain does not end at depth %d in object %d", o, depth, top)
		}
		if length > len(near) {
			obj, err := x.Object(top)
			if err != nil {
				return nil, nil, 0, err
			}
			objs, index = append(objs, obj), append(index, 0)
		}
		for i := len(near) - 1; i >= 0; i-- {
			objs, index = append(objs, near[i]), append(index, length-1-i)
		}
		return objs, index, length, nil
	}
	// Version 1: walk to the top, keeping the first ends seen (nearest node)
	// and the last (the top).
	var near []Object
	var last Object
	for {
		rec, err := x.record(o)
		if err != nil {
			return nil, nil, 0, err
		}
		if rec.idom == noObject {
			if length == 0 {
				return nil, nil, 0, fmt.Errorf("%w: object %d is not reachable from the GC roots", analyze.ErrInvalidParameter, node)
			}
			return nil, nil, 0, malformedIndex("object %d on a dominator chain is unreachable", o)
		}
		obj, err := x.object(o, rec)
		if err != nil {
			return nil, nil, 0, err
		}
		if len(near) < ends {
			near = append(near, obj)
		}
		last = obj
		length++
		if uint64(rec.idom) == x.hd.Objects {
			break
		}
		if uint64(length) > x.hd.Reachable {
			return nil, nil, 0, malformedIndex("the dominator chain of object %d loops", node)
		}
		o = rec.idom
	}
	if length > len(near) {
		objs, index = append(objs, last), append(index, 0)
	}
	for i := len(near) - 1; i >= 0; i-- {
		objs, index = append(objs, near[i]), append(index, length-1-i)
	}
	return objs, index, length, nil
}

// walkUp returns o and its dominators up the chain, k objects at most, o
// first; atTop tells that the last is a top-level object.
func (x *Index) walkUp(o uint32, k int) (out []Object, atTop bool, err error) {
	for len(out) < k {
		rec, err := x.record(o)
		if err != nil {
			return nil, false, err
		}
		if rec.idom == noObject {
			return nil, false, malformedIndex("object %d on a dominator chain is unreachable", o)
		}
		obj, err := x.object(o, rec)
		if err != nil {
			return nil, false, err
		}
		out = append(out, obj)
		if uint64(rec.idom) == x.hd.Objects {
			return out, true, nil
		}
		o = rec.idom
	}
	return out, false, nil
}

// PathCount is how many suspects' paths the index holds, in the order of the
// report's suspects (0 for an index written before paths were kept).
func (x *Index) PathCount() int { return len(x.paths) }

// PathSteps returns the steps from offset (0 for the GC root) of the shortest
// path of the report's suspect i, at most limit of them, with the number of
// steps in all: each step's object, the field through which the step above
// references it ("" when it was not read) and, for the root, its label. It
// reads one record a step. An ErrInvalidParameter error for a path the index
// does not hold.
func (x *Index) PathSteps(i, offset, limit int) (steps []Step, total int, err error) {
	if i < 0 || i >= len(x.paths) || offset < 0 || limit < 0 {
		return nil, 0, fmt.Errorf("%w: path %d of %d, offset %d, limit %d", analyze.ErrInvalidParameter, i, len(x.paths), offset, limit)
	}
	p := x.paths[i]
	total = int(p.length)
	if offset >= total || limit == 0 {
		return []Step{}, total, nil
	}
	k := min(limit, total-offset)
	// The steps are stored from the accumulation point up: position pos is
	// entry length-1-pos.
	last := uint64(total - offset - 1)
	firstEntry := last - uint64(k-1)
	b := make([]byte, stepEntry*k)
	if err := x.readAt(b, x.hd.PathSteps.Offset+(p.first+firstEntry)*stepEntry); err != nil {
		return nil, 0, err
	}
	steps = make([]Step, 0, k)
	for j := k - 1; j >= 0; j-- {
		o, via := le.Uint32(b[stepEntry*j:]), le.Uint32(b[stepEntry*j+4:])
		if uint64(o) >= x.hd.Objects {
			return nil, 0, malformedIndex("step of path %d is object %d of %d", i, o, x.hd.Objects)
		}
		obj, err := x.Object(o)
		if err != nil {
			return nil, 0, err
		}
		pos := offset + (k - 1 - j)
		st := Step{Object: obj, Index: pos}
		switch {
		case pos == 0:
			st.Root = x.names[p.root]
		case via == viaUnknown:
		case via&viaElement != 0:
			st.Field = fmt.Sprintf("[%d]", via&^viaElement)
		case int(via) < len(x.names):
			st.Field = x.names[via]
		default:
			return nil, 0, malformedIndex("step %d of path %d names field %d of %d", pos, i, via, len(x.names))
		}
		steps = append(steps, st)
	}
	return steps, total, nil
}

// PathPoint is the object path i ends at (a suspect's accumulation point).
func (x *Index) PathPoint(i int) (uint32, error) {
	if i < 0 || i >= len(x.paths) {
		return 0, fmt.Errorf("%w: path %d of %d", analyze.ErrInvalidParameter, i, len(x.paths))
	}
	return x.paths[i].point, nil
}
