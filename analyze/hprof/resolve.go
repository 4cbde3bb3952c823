package hprof

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf16"
)

// maxText is how many characters of a string a report shows.
const maxText = 160

// resolver is one more pass over the dump for what the compact arrays do not keep:
// the name of the field through which an object references another, and the text of
// a string's value array.
type resolver struct {
	h      *Heap
	fields map[uint32][]uint32 // referrer → referenced objects whose field is wanted
	names  map[[2]uint32]string
	texts  map[uint32]uint8 // value array → String.coder
	text   map[uint32]string
	n      uint32
}

func newResolver(h *Heap) *resolver {
	return &resolver{h: h, fields: map[uint32][]uint32{}, names: map[[2]uint32]string{},
		texts: map[uint32]uint8{}, text: map[uint32]string{}}
}

// wantField asks for the name of the field through which from references to.
func (r *resolver) wantField(from, to uint32) {
	r.fields[from] = append(r.fields[from], to)
}

// wantText asks for the text of the String str (an ordinal), if it is one.
func (r *resolver) wantText(str uint32) {
	if v, ok := r.h.stringValue(str); ok {
		r.texts[v.value] = v.coder
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

// field is the name of the field through which from references to after run.
func (r *resolver) field(from, to uint32) string { return r.names[[2]uint32{from, to}] }

func (r *resolver) run() error {
	if len(r.fields) == 0 && len(r.texts) == 0 {
		return nil
	}
	s := newScanner(r.h.file, r.h.fileSize)
	s.idSize = r.h.IDSize
	return walk(s, r.h.dataStart, r)
}

func (r *resolver) utf8(uint64, []byte)                          {}
func (r *resolver) loadClass(uint32, uint64, uint64)             {}
func (r *resolver) stackFrame(rawFrame)                          {}
func (r *resolver) stackTrace(uint32, uint32, []uint64)          {}
func (r *resolver) root(RootKind, uint64, uint32, int32, uint32) {}
func (r *resolver) failed() error                                { return nil }

func (r *resolver) class(d *classDump) error {
	o := r.n
	r.n++
	want, ok := r.fields[o]
	if !ok {
		return nil
	}
	for _, to := range want {
		id := r.h.ids[to]
		name := ""
		switch {
		case d.super == id:
			name = "<super>"
		case d.loader == id:
			name = "<classloader>"
		}
		for _, f := range d.statics {
			if name == "" && f.typ == typeObject && f.value == id {
				name = "static " + r.h.names[f.name]
			}
		}
		if name == "" {
			name = "<constant pool>"
		}
		r.names[[2]uint32{o, to}] = name
	}
	return nil
}

func (r *resolver) object(kind objKind, id, classID uint64, n uint32, elem byte, s *scanner) error {
	o := r.n
	r.n++
	if want, ok := r.fields[o]; ok {
		switch kind {
		case objInstance:
			c := r.h.Classes[r.h.class[o]]
			data, err := s.need(int(n))
			if err != nil {
				return err
			}
			for _, to := range want {
				for i, off := range c.refOffsets {
					if readID(data[off:], r.h.IDSize) == r.h.ids[to] {
						r.names[[2]uint32{o, to}] = r.h.names[c.refNames[i]]
						break
					}
				}
			}
		case objObjArray:
			ids := r.h.IDSize
			for i := 0; i < int(n); i++ {
				b, err := s.need(ids)
				if err != nil {
					return err
				}
				v := readID(b, ids)
				for _, to := range want {
					if r.h.ids[to] == v {
						if _, done := r.names[[2]uint32{o, to}]; !done {
							r.names[[2]uint32{o, to}] = fmt.Sprintf("[%d]", i)
						}
					}
				}
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
