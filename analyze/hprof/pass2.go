package hprof

import (
	"encoding/binary"
	"fmt"

	"github.com/leakui/leakui/analyze"
)

// pass2 reads the references of every object into the CSR graph, in the ordinals of
// pass 1 (the same records in the same order), and notes the strings' value arrays
// and the threads' names.
type pass2 struct {
	h        *Heap
	s        *scanner
	offsets  *grower[uint32]
	targets  *grower[uint32]
	strings  *grower[stringRef]
	refs     []threadRef
	weak     *grower[refRecord]    // the java.lang.ref.Reference objects and their referents
	broken   *grower[uint32]       // the objects with a dangling reference
	native   *grower[nativeRecord] // the objects whose native fields were read
	ids      sequence              // the pass reads ids and class front to back
	cls      sequence
	n        uint32
	dangling int64
}

// init maps the references' arrays, for at most maxRefs references.
func (p *pass2) init(maxRefs int) error {
	h := p.h
	rs := &h.rs
	var err error
	if p.offsets, err = newGrower[uint32](rs, len(h.ids)+1, streamed, "reference offsets"); err != nil {
		return err
	}
	if p.targets, err = newGrower[uint32](rs, maxRefs, streamed, "references"); err != nil {
		return err
	}
	if p.strings, err = newGrower[stringRef](rs, len(h.ids), streamed, "strings"); err != nil {
		return err
	}
	if p.weak, err = newGrower[refRecord](rs, len(h.ids), streamed, "references' referents"); err != nil {
		return err
	}
	if p.native, err = newGrower[nativeRecord](rs, len(h.ids), streamed, "native memory holders"); err != nil {
		return err
	}
	if p.broken, err = newGrower[uint32](rs, len(h.ids), streamed, "dangling references"); err != nil {
		return err
	}
	p.ids, p.cls = scan(rs, h.ids), scan(rs, h.class)
	return nil
}

func (p *pass2) utf8(uint64, []byte)                          {}
func (p *pass2) loadClass(uint32, uint64, uint64)             {}
func (p *pass2) stackFrame(rawFrame)                          {}
func (p *pass2) stackTrace(uint32, uint32, []uint64)          {}
func (p *pass2) root(RootKind, uint64, uint32, int32, uint32) {}
func (p *pass2) failed() error                                { return nil }

// ref adds an edge to identifier id unless it is null or dangling, and returns the
// target's ordinal (noObject if none).
func (p *pass2) ref(id uint64) (uint32, error) {
	if id == 0 {
		return noObject, nil
	}
	o := p.h.ordinal(id)
	if o == noObject {
		p.dangling++
		// The object whose reference dangles, once: the fields of its edges
		// are matched by identifier (resolve.go), not by position.
		if from := p.n - 1; len(p.broken.s) == 0 || p.broken.s[len(p.broken.s)-1] != from {
			if err := p.broken.add(from); err != nil {
				return noObject, err
			}
		}
		return noObject, nil
	}
	if len(p.targets.s) == int(^uint32(0)) {
		return noObject, fmt.Errorf("%w: more than 4 billion references", analyze.ErrTooLarge)
	}
	return o, p.targets.add(o)
}

func (p *pass2) start(id uint64) error {
	if int(p.n) >= len(p.h.ids) || p.h.ids[p.n] != id {
		return fmt.Errorf("%w: the dump changed between two readings", analyze.ErrMalformed)
	}
	if err := p.offsets.add(uint32(len(p.targets.s))); err != nil {
		return err
	}
	if p.n&cancelCheckMask == 0 {
		p.ids.at(int(p.n))
		p.cls.at(int(p.n))
		return p.h.reportPass(stageReferences, p.s)
	}
	return nil
}

func (p *pass2) class(d *classDump) error {
	if err := p.start(d.id); err != nil {
		return err
	}
	p.n++
	if _, err := p.ref(d.super); err != nil {
		return err
	}
	loader, err := p.ref(d.loader)
	if err != nil {
		return err
	}
	if cn, ok := p.h.classByID[d.id]; ok {
		p.h.Classes[cn].loader = loader
	}
	for _, f := range d.statics {
		if f.typ == typeObject {
			if _, err := p.ref(f.value); err != nil {
				return err
			}
		}
	}
	for _, id := range d.cpRefs {
		if _, err := p.ref(id); err != nil {
			return err
		}
	}
	return nil
}

func (p *pass2) object(kind objKind, id, classID uint64, n uint32, elem byte, s *scanner) error {
	if err := p.start(id); err != nil {
		return err
	}
	o := p.n
	p.n++
	switch kind {
	case objInstance:
		c := p.h.Classes[p.h.class[o]]
		if !c.dumped {
			return fmt.Errorf("%w: instance 0x%x of class 0x%x, which is not in the dump", analyze.ErrMalformed, id, classID)
		}
		if n != c.fieldBytes {
			return fmt.Errorf("%w: instance 0x%x of %s has %d bytes of fields, its class declares %d", analyze.ErrMalformed, id, c.Name, n, c.fieldBytes)
		}
		if len(c.refOffsets) == 0 && c.special == nil {
			return nil
		}
		data, err := s.need(int(n))
		if err != nil {
			return err
		}
		if c.special != nil {
			if err := p.special(o, c.special, data); err != nil {
				return err
			}
		}
		for i, off := range c.refOffsets {
			t, err := p.ref(readID(data[off:], p.h.IDSize))
			if err != nil {
				return err
			}
			if c.isString && t != noObject && p.h.names[c.refNames[i]] == "value" {
				r := stringRef{str: o, value: t}
				if c.coderAt >= 0 {
					r.coder = data[c.coderAt]
				}
				if err := p.strings.add(r); err != nil {
					return err
				}
			}
			if c.isThread && p.h.names[c.refNames[i]] == "name" {
				p.refs = append(p.refs, threadRef{obj: o, name: t})
			}
		}
	case objObjArray:
		ids := p.h.IDSize
		for left := int(n); left > 0; {
			k := min(left, bufSize/ids)
			data, err := s.need(k * ids)
			if err != nil {
				return err
			}
			for i := 0; i < k; i++ {
				if _, err := p.ref(readID(data[i*ids:], ids)); err != nil {
					return err
				}
			}
			left -= k
		}
	}
	return nil
}

// special reads the referent of a Reference and the fields of an object that
// holds native memory (native.go).
func (p *pass2) special(o uint32, sp *special, data []byte) error {
	ids := p.h.IDSize
	ref := func(at int32) uint32 {
		if at < 0 {
			return noObject
		}
		if id := readID(data[at:], ids); id != 0 {
			return p.h.ordinal(id)
		}
		return noObject
	}
	long := func(at int32) int64 {
		if at < 0 {
			return 0
		}
		return int64(binary.BigEndian.Uint64(data[at:]))
	}
	if sp.refKind != RefNone {
		if t := ref(sp.referentAt); t != noObject {
			if err := p.weak.add(refRecord{ref: o, referent: t, kind: sp.refKind}); err != nil {
				return err
			}
		}
	}
	r := nativeRecord{obj: o, kind: sp.kind, link: noObject}
	switch sp.kind {
	case nativeNone:
		return nil
	case nativeDirect:
		if sp.capacityAt >= 0 {
			r.value = int64(int32(binary.BigEndian.Uint32(data[sp.capacityAt:])))
		}
		if sp.cleanerAt >= 0 && readID(data[sp.cleanerAt:], ids) != 0 {
			r.flags |= nativeOwner
		}
		if sp.fdAt >= 0 && readID(data[sp.fdAt:], ids) != 0 {
			r.flags |= nativeMapped
		}
	case nativeInflater, nativeDeflater:
		r.link = ref(sp.zsRefAt)
	case nativeZStream:
		r.value, r.flags = long(sp.addressAt), uint8(sp.stream)
	case nativeThread:
		r.value, r.link = long(sp.stackSizeAt), ref(sp.holderAt)
	case nativeHolder:
		r.value = long(sp.stackSizeAt)
	}
	return p.native.add(r)
}

func (p *pass2) finish() error {
	h := p.h
	if int(p.n) != len(h.ids) {
		return fmt.Errorf("%w: the dump changed between two readings", analyze.ErrMalformed)
	}
	if err := p.offsets.add(uint32(len(p.targets.s))); err != nil {
		return err
	}
	p.ids.end()
	p.cls.end()
	h.out.offsets, h.out.targets, h.strings = p.offsets.done(), p.targets.done(), p.strings.done()
	h.weak, h.native, h.broken = p.weak.done(), p.native.done(), p.broken.done()
	h.threads = p.refs
	h.Dangling = p.dangling
	return nil
}
