package hprof

import (
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
	ids      sequence // the pass reads ids and class front to back
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
	for _, id := range []uint64{d.super, d.loader} {
		if _, err := p.ref(id); err != nil {
			return err
		}
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
		if len(c.refOffsets) == 0 {
			return nil
		}
		data, err := s.need(int(n))
		if err != nil {
			return err
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
	h.threads = p.refs
	h.Dangling = p.dangling
	return nil
}
