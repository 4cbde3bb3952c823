package hprof

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"unicode/utf16"
)

// maxText is how many characters of a string a report shows.
const maxText = 160

// A via says through what an object references the next step of a path: the
// field of an instance, the element of an array, or a class's superclass,
// loader, static field or constant pool. It is a number, so that the fields of
// a path of millions of steps cost four bytes a step: an array element is
// viaElement|i, anything else an index into the resolver's table of names.
const (
	viaElement = 1 << 31
	// viaUnknown is a step whose field was not read (and the root, which has
	// none).
	viaUnknown = ^uint32(0)
)

// fieldWant asks for the via through which from references to; slot is where
// the answer goes.
type fieldWant struct {
	from, to, slot uint32
}

// fieldWantSize is a fieldWant's size, for the budget.
const fieldWantSize = 12

// resolver is one more pass over the dump for what the compact arrays do not keep:
// the field through which an object references another, and the text of a
// string's value array. Its fields are asked for as a sorted list, answered in
// slots, so that what it holds is a few bytes a step however long the paths.
type resolver struct {
	h       *Heap
	wants   []fieldWant // sorted by from before run
	vias    []uint32    // the answers, by slot
	names   []string    // the names vias index
	nameIdx map[string]uint32
	texts   map[uint32]uint8 // value array → String.coder
	text    map[uint32]string
	n       uint32
	next    int // the first want not answered yet, in run
	// all, when set, gets the via of every object's step on its shortest
	// path (pathVias); fieldVias caches each class's fields' vias.
	all       []uint32
	fieldVias map[uint32][]uint32
	s         *scanner
	qo, qt    sequence
	// chunk is set on a resolver that reads one chunk of the dump beside
	// others (runChunks): its names and texts are its own, its vias number
	// them until they are merged, and what they take is counted in small
	// rather than charged.
	chunk *chunkResolver
}

func newResolver(h *Heap) *resolver {
	return &resolver{h: h, nameIdx: map[string]uint32{}, texts: map[uint32]uint8{}, text: map[uint32]string{}, fieldVias: map[uint32][]uint32{}}
}

// slots reserves n answers, charged to the heap's meter, and returns the first.
func (r *resolver) slots(n int) (uint32, error) {
	if err := r.h.mem.charge(4*int64(n), "the fields of the paths"); err != nil {
		return 0, err
	}
	first := uint32(len(r.vias))
	r.vias = slices.Grow(r.vias, n)
	for range n {
		r.vias = append(r.vias, viaUnknown)
	}
	return first, nil
}

// wantField asks for the via through which from references to, answered in
// slot; the caller has charged fieldWantSize for it.
func (r *resolver) wantField(from, to, slot uint32) {
	r.wants = append(r.wants, fieldWant{from: from, to: to, slot: slot})
}

// wantText asks for the text of the String str (an ordinal), if it is one.
func (r *resolver) wantText(str uint32) {
	if v, ok := r.h.stringValue(str); ok {
		r.texts[v.value] = v.coder
	}
}

// wantName asks for what names object o: its text if it is a String, its name
// if it is a thread.
func (r *resolver) wantName(o uint32) {
	r.wantText(o)
	if t, ok := r.h.thread(o); ok && t.name != noObject {
		r.wantText(t.name)
	}
}

// textOf is the text of String str after run, ok false if unknown.
func (r *resolver) textOf(str uint32) (string, bool) {
	v, ok := r.h.stringValue(str)
	if !ok {
		return "", false
	}
	t, ok := r.text[v.value]
	return t, ok
}

// threadName is the name of thread object o after run, "" if o is not a thread
// or its name was not read.
func (r *resolver) threadName(o uint32) string {
	if t, ok := r.h.thread(o); ok && t.name != noObject {
		if name, ok := r.textOf(t.name); ok {
			return name
		}
	}
	return ""
}

// viaName is the name of a via: "next", "[3]", "<super>", "static INSTANCE";
// "" for viaUnknown.
func (r *resolver) viaName(v uint32) string {
	switch {
	case v == viaUnknown:
		return ""
	case v&viaElement != 0:
		return fmt.Sprintf("[%d]", v&^viaElement)
	case int(v) < len(r.names):
		return r.names[v]
	}
	return ""
}

// via is the via of a name, added to the table the first time.
func (r *resolver) via(name string) uint32 {
	if v, ok := r.nameIdx[name]; ok {
		return v
	}
	r.chargeSmall(int64(len(name)) + mapEntry)
	v := uint32(len(r.names))
	r.names = append(r.names, name)
	r.nameIdx[name] = v
	return v
}

// chargeSmall charges n bytes of names, or counts them in a chunk's resolver.
func (r *resolver) chargeSmall(n int64) {
	if r.chunk != nil {
		r.chunk.small += n
		return
	}
	r.h.mem.chargeSmall(n, "the names of fields")
}

// progress reports how far the reading is, or, in a chunk's resolver, only
// whether to stop.
func (r *resolver) progress() error {
	if r.chunk != nil {
		if r.chunk.quit.Load() {
			return errQuit
		}
		return r.h.stopped()
	}
	return r.h.reportPass(stageNames, r.s)
}

func (r *resolver) run() error {
	if len(r.wants) == 0 && len(r.texts) == 0 && r.all == nil {
		return nil
	}
	slices.SortFunc(r.wants, func(a, b fieldWant) int {
		if c := cmpUint32(a.from, b.from); c != 0 {
			return c
		}
		return cmpUint32(a.slot, b.slot)
	})
	if workers := min(runtime.GOMAXPROCS(0), len(r.h.cps)); !r.h.sequential && workers >= 2 {
		return r.runChunks(workers)
	}
	s := newScanner(r.h.file, r.h.fileSize)
	s.idSize = r.h.IDSize
	r.s = s
	if r.all != nil {
		rs := &r.h.rs
		for _, err := range []error{hold(rs, r.h.bfs), hold(rs, r.all)} {
			if err != nil {
				return err
			}
		}
		r.qo, r.qt = scan(rs, r.h.out.offsets), scan(rs, r.h.out.targets)
		defer func() {
			r.qo.end()
			r.qt.end()
			release(rs, r.h.bfs)
			release(rs, r.all)
		}()
	}
	if err := walk(s, r.h.dataStart, r); err != nil {
		return err
	}
	r.h.mem.uncharge(fieldWantSize * int64(len(r.wants)))
	r.wants = nil
	return r.h.mem.flush()
}

func (r *resolver) utf8(uint64, []byte)                          {}
func (r *resolver) loadClass(uint32, uint64, uint64)             {}
func (r *resolver) stackFrame(rawFrame)                          {}
func (r *resolver) stackTrace(uint32, uint32, []uint64)          {}
func (r *resolver) root(RootKind, uint64, uint32, int32, uint32) {}
func (r *resolver) failed() error                                { return nil }

// wanted returns the wants of object o (the next ones in order) and moves past
// them.
func (r *resolver) wanted(o uint32) []fieldWant {
	for r.next < len(r.wants) && r.wants[r.next].from < o {
		r.next++
	}
	start := r.next
	for r.next < len(r.wants) && r.wants[r.next].from == o {
		r.next++
	}
	return r.wants[start:r.next]
}

// viaMatch matches the non-null reference fields of object o, in the order
// pass 2 read them, with o's edges, and gives each edge whose target's
// shortest path comes through o its via. An object with a dangling reference
// (broken) has its fields matched by identifier, since its edges skip them.
type viaMatch struct {
	r      *resolver
	o      uint32
	row    []uint32
	e      int
	broken bool
}

// wants tells whether some edge of o needs its via.
func (r *resolver) viaMatch(o uint32) (viaMatch, bool) {
	if r.all == nil {
		return viaMatch{}, false
	}
	if o&cancelCheckMask == 0 {
		r.qo.at(int(o))
		r.qt.at(int(r.h.out.offsets[o]))
	}
	row := r.h.out.row(o)
	for _, t := range row {
		if r.h.bfs[t] == o && r.all[t] == viaUnknown {
			_, broken := slices.BinarySearch(r.h.broken, o)
			return viaMatch{r: r, o: o, row: row, broken: broken}, true
		}
	}
	return viaMatch{}, false
}

// field matches the next non-null field, of value v, through via.
func (m *viaMatch) field(v uint64, via func() uint32) {
	if v == 0 || m.e >= len(m.row) {
		return
	}
	t := m.row[m.e]
	if m.broken && m.r.h.ids[t] != v {
		return // a dangling reference: no edge
	}
	m.e++
	if m.r.h.bfs[t] == m.o && m.r.all[t] == viaUnknown {
		m.r.all[t] = via()
	}
}

// classVias are the vias of the reference fields of class cn's instances, in
// the order of its refOffsets.
func (r *resolver) classVias(cn uint32) []uint32 {
	if v, ok := r.fieldVias[cn]; ok {
		return v
	}
	c := r.h.Classes[cn]
	v := make([]uint32, len(c.refNames))
	for i, name := range c.refNames {
		v[i] = r.via(clip(r.h.names[name]))
	}
	r.chargeSmall(int64(4*len(v)) + mapEntry)
	r.fieldVias[cn] = v
	return v
}

func (r *resolver) class(d *classDump) error {
	o := r.n
	r.n++
	if o&cancelCheckMask == 0 {
		if err := r.progress(); err != nil {
			return err
		}
	}
	if m, ok := r.viaMatch(o); ok {
		m.field(d.super, func() uint32 { return r.via("<super>") })
		m.field(d.loader, func() uint32 { return r.via("<classloader>") })
		for _, f := range d.statics {
			if f.typ == typeObject {
				m.field(f.value, func() uint32 { return r.via("static " + clip(r.h.names[f.name])) })
			}
		}
		for _, id := range d.cpRefs {
			m.field(id, func() uint32 { return r.via("<constant pool>") })
		}
	}
	for _, w := range r.wanted(o) {
		id := r.h.ids[w.to]
		name := ""
		switch {
		case d.super == id:
			name = "<super>"
		case d.loader == id:
			name = "<classloader>"
		}
		for _, f := range d.statics {
			if name == "" && f.typ == typeObject && f.value == id {
				name = "static " + clip(r.h.names[f.name])
			}
		}
		if name == "" {
			name = "<constant pool>"
		}
		r.vias[w.slot] = r.via(name)
	}
	return nil
}

func (r *resolver) object(kind objKind, id, classID uint64, n uint32, elem byte, s *scanner) error {
	o := r.n
	r.n++
	if o&cancelCheckMask == 0 {
		if err := r.progress(); err != nil {
			return err
		}
	}
	want := r.wanted(o)
	m, vias := r.viaMatch(o)
	if len(want) > 0 || vias {
		ids := r.h.IDSize
		switch kind {
		case objInstance:
			cn := r.h.class[o]
			c := r.h.Classes[cn]
			data, err := s.need(int(n))
			if err != nil {
				return err
			}
			for _, w := range want {
				for i, off := range c.refOffsets {
					if readID(data[off:], ids) == r.h.ids[w.to] {
						r.vias[w.slot] = r.via(clip(r.h.names[c.refNames[i]]))
						break
					}
				}
			}
			if vias {
				fv := r.classVias(cn)
				for i, off := range c.refOffsets {
					m.field(readID(data[off:], ids), func() uint32 { return fv[i] })
				}
			}
		case objObjArray:
			left := len(want)
			for i := 0; i < int(n) && (left > 0 || vias); {
				k := min(int(n)-i, bufSize/ids)
				data, err := s.need(k * ids)
				if err != nil {
					return err
				}
				for j := 0; j < k; j++ {
					v := readID(data[j*ids:], ids)
					for _, w := range want {
						if r.h.ids[w.to] == v && r.vias[w.slot] == viaUnknown {
							r.vias[w.slot] = viaElement | uint32(i+j)
							left--
						}
					}
					if vias {
						e := uint32(i + j)
						m.field(v, func() uint32 { return viaElement | e })
					}
				}
				i += k
			}
		}
	}
	if coder, ok := r.texts[o]; ok && kind == objPrimArray {
		es := typeSize(elem, 8)
		m := min(int(n), 4*maxText)
		data, err := s.need(m * es)
		if err != nil {
			return err
		}
		r.text[o] = decodeText(data, elem, coder)
	}
	return nil
}

// decodeText turns the value array of a String into text: Latin-1 or UTF-16 (little
// endian, as on x86 and ARM) bytes for JDK 9+, big-endian chars for JDK 8.
func decodeText(data []byte, elem byte, coder uint8) string {
	var units []uint16
	switch {
	case elem == typeChar:
		for i := 0; i+1 < len(data); i += 2 {
			units = append(units, binary.BigEndian.Uint16(data[i:]))
		}
	case coder == 1:
		for i := 0; i+1 < len(data); i += 2 {
			units = append(units, binary.LittleEndian.Uint16(data[i:]))
		}
	default:
		var b strings.Builder
		for i, c := range data {
			if i >= maxText {
				break
			}
			b.WriteRune(rune(c))
		}
		return b.String()
	}
	if len(units) > maxText {
		units = units[:maxText]
	}
	return string(utf16.Decode(units))
}

// stringValue finds the value array of String str.
func (h *Heap) stringValue(str uint32) (stringRef, bool) {
	i, ok := slicesSearch(len(h.strings), func(i int) bool { return h.strings[i].str >= str })
	if ok && h.strings[i].str == str {
		return h.strings[i], true
	}
	return stringRef{}, false
}

// thread finds the thread record of object o, ok false when o is not a thread.
func (h *Heap) thread(o uint32) (threadRef, bool) {
	i, ok := slicesSearch(len(h.threads), func(i int) bool { return h.threads[i].obj >= o })
	if ok && h.threads[i].obj == o {
		return h.threads[i], true
	}
	return threadRef{}, false
}

// slicesSearch is sort.Search that also says whether the index is in range.
func slicesSearch(n int, f func(int) bool) (int, bool) {
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if !f(m) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < n
}
