package hprof

import (
	"fmt"

	"github.com/leakui/leakui/analyze"
)

// objKind tells what a heap dump sub-record describes.
type objKind uint8

const (
	objInstance objKind = iota + 1
	objObjArray
	objPrimArray
	objClass
)

// classDump is a CLASS DUMP sub-record.
type classDump struct {
	id, super, loader uint64
	instanceSize      uint32
	statics           []staticField
	fields            []fieldDef
	cpRefs            []uint64 // object values in the constant pool
}

// staticField is a static field of a class dump; value is the identifier of an
// object value (0 for other types and null).
type staticField struct {
	name  uint64
	typ   byte
	value uint64
}

// fieldDef is an instance field declared by a class.
type fieldDef struct {
	name uint64
	typ  byte
}

// visitor receives the records of one pass. The object callbacks get the scanner
// positioned at the body of the record (instance field data, array elements); they
// may read it, and walk moves to the end of the record afterwards.
type visitor interface {
	utf8(id uint64, text []byte)
	loadClass(serial uint32, classID, nameID uint64)
	stackFrame(f rawFrame)
	stackTrace(serial, thread uint32, frames []uint64)
	root(kind RootKind, id uint64, thread uint32, frame int32, trace uint32)
	// failed is the first error of the calls above that return none (a memory
	// budget refused): walk stops at the end of the record or root that met it.
	failed() error
	class(c *classDump) error
	object(kind objKind, id, classID uint64, n uint32, elem byte, s *scanner) error
}

// rawFrame is a STACK FRAME record.
type rawFrame struct {
	id, method, signature, source uint64
	classSerial                   uint32
	line                          int32
}

// walk reads every record after the header, calling v. A record or sub-record
// that runs past its container or the file, an unknown sub-record tag, or a
// count that does not fit is ErrMalformed.
func walk(s *scanner, start int64, v visitor) error {
	return walkRange(s, start, 0, s.size, v)
}

// walkRange reads the records from start to limit: start is a record's
// offset, or, when segEnd is not 0, a sub-record's inside the heap dump
// segment that ends at segEnd; limit is the file's size or a sub-record's
// offset (a checkpoint of the first pass).
func walkRange(s *scanner, start, segEnd, limit int64, v visitor) error {
	s.seek(start)
	if segEnd != 0 {
		stopped, err := walkHeap(s, segEnd, limit, v)
		if err != nil || stopped {
			return err
		}
		s.seek(segEnd)
	}
	for s.pos() < limit {
		hdr, err := s.need(9)
		if err != nil {
			return err
		}
		tag := hdr[0]
		length := int64(uint32(hdr[5])<<24 | uint32(hdr[6])<<16 | uint32(hdr[7])<<8 | uint32(hdr[8]))
		bodyStart := s.pos()
		end := bodyStart + length
		if end > s.size {
			return fmt.Errorf("%w: record 0x%02x at offset %d claims %d bytes, past the end of the file (%d bytes)", analyze.ErrMalformed, tag, bodyStart-9, length, s.size)
		}
		switch tag {
		case tagUTF8:
			if length < int64(s.idSize) || length-int64(s.idSize) > bufSize {
				return fmt.Errorf("%w: string record of %d bytes at offset %d", analyze.ErrMalformed, length, bodyStart-9)
			}
			b, err := s.need(int(length))
			if err != nil {
				return err
			}
			v.utf8(readID(b, s.idSize), b[s.idSize:])
		case tagLoadClass:
			if length != int64(8+2*s.idSize) {
				return fmt.Errorf("%w: LOAD CLASS record of %d bytes at offset %d", analyze.ErrMalformed, length, bodyStart-9)
			}
			b, err := s.need(int(length))
			if err != nil {
				return err
			}
			v.loadClass(be32(b), readID(b[4:], s.idSize), readID(b[8+s.idSize:], s.idSize))
		case tagStackFrame:
			if length != int64(8+4*s.idSize) {
				return fmt.Errorf("%w: STACK FRAME record of %d bytes at offset %d", analyze.ErrMalformed, length, bodyStart-9)
			}
			b, err := s.need(int(length))
			if err != nil {
				return err
			}
			n := s.idSize
			v.stackFrame(rawFrame{id: readID(b, n), method: readID(b[n:], n), signature: readID(b[2*n:], n),
				source: readID(b[3*n:], n), classSerial: be32(b[4*n:]), line: int32(be32(b[4*n+4:]))})
		case tagStackTrace:
			if length < 12 {
				return fmt.Errorf("%w: STACK TRACE record of %d bytes at offset %d", analyze.ErrMalformed, length, bodyStart-9)
			}
			b, err := s.need(12)
			if err != nil {
				return err
			}
			serial, thread, nf := be32(b), be32(b[4:]), be32(b[8:])
			if int64(nf)*int64(s.idSize) != length-12 {
				return fmt.Errorf("%w: STACK TRACE of %d frames in %d bytes at offset %d", analyze.ErrMalformed, nf, length, bodyStart-9)
			}
			frames := make([]uint64, 0, min(nf, 1024))
			for range nf {
				id, err := s.id()
				if err != nil {
					return err
				}
				frames = append(frames, id)
			}
			v.stackTrace(serial, thread, frames)
		case tagHeapDump, tagHeapDumpSegment:
			stopped, err := walkHeap(s, end, limit, v)
			if err != nil || stopped {
				return err
			}
		}
		if err := v.failed(); err != nil {
			return err
		}
		s.seek(end)
	}
	return nil
}

// walkHeap reads the sub-records of one HEAP DUMP or HEAP DUMP SEGMENT record, which
// ends at end, and stops (stopped true) at the sub-record at offset limit.
func walkHeap(s *scanner, end, limit int64, v visitor) (stopped bool, err error) {
	n := s.idSize
	s.segEnd = end
	for s.pos() < end {
		at := s.pos()
		if at == limit {
			return true, nil
		}
		s.subAt = at
		sub, err := s.u1()
		if err != nil {
			return false, err
		}
		fixed := rootSize(sub, n)
		if fixed >= 0 {
			if at+1+int64(fixed) > end {
				return false, pastSegment(at, sub)
			}
			b, err := s.need(fixed)
			if err != nil {
				return false, err
			}
			id := readID(b, n)
			switch sub {
			case subRootUnknown:
				v.root(RootUnknown, id, 0, -1, 0)
			case subRootJNIGlobal:
				v.root(RootJNIGlobal, id, 0, -1, 0)
			case subRootJNILocal:
				v.root(RootJNILocal, id, be32(b[n:]), int32(be32(b[n+4:])), 0)
			case subRootJavaFrame:
				v.root(RootJavaFrame, id, be32(b[n:]), int32(be32(b[n+4:])), 0)
			case subRootNativeStack:
				v.root(RootNativeStack, id, be32(b[n:]), -1, 0)
			case subRootStickyClass:
				v.root(RootStickyClass, id, 0, -1, 0)
			case subRootThreadBlock:
				v.root(RootThreadBlock, id, be32(b[n:]), -1, 0)
			case subRootMonitorUsed:
				v.root(RootMonitorUsed, id, 0, -1, 0)
			case subRootThreadObject:
				v.root(RootThreadObject, id, be32(b[n:]), -1, be32(b[n+4:]))
			case subAndroidHeapInfo:
				// heap id and name: not a root
			default:
				v.root(RootOther, id, 0, -1, 0)
			}
			if err := v.failed(); err != nil {
				return false, err
			}
			continue
		}
		switch sub {
		case subClassDump:
			c, err := readClassDump(s, end)
			if err != nil {
				return false, err
			}
			if err := v.class(c); err != nil {
				return false, err
			}
		case subInstanceDump:
			if at+1+int64(2*n+8) > end {
				return false, pastSegment(at, sub)
			}
			b, err := s.need(2*n + 8)
			if err != nil {
				return false, err
			}
			id, classID, nb := readID(b, n), readID(b[n+4:], n), be32(b[2*n+4:])
			bodyEnd := s.pos() + int64(nb)
			if bodyEnd > end {
				return false, pastSegment(at, sub)
			}
			if err := v.object(objInstance, id, classID, nb, 0, s); err != nil {
				return false, err
			}
			s.seek(bodyEnd)
		case subObjArrayDump:
			if at+1+int64(2*n+8) > end {
				return false, pastSegment(at, sub)
			}
			b, err := s.need(2*n + 8)
			if err != nil {
				return false, err
			}
			id, count, classID := readID(b, n), be32(b[n+4:]), readID(b[n+8:], n)
			bodyEnd := s.pos() + int64(count)*int64(n)
			if bodyEnd > end {
				return false, pastSegment(at, sub)
			}
			if err := v.object(objObjArray, id, classID, count, typeObject, s); err != nil {
				return false, err
			}
			s.seek(bodyEnd)
		case subPrimArrayDump, subAndroidPrimNoData:
			if at+1+int64(n+9) > end {
				return false, pastSegment(at, sub)
			}
			b, err := s.need(n + 9)
			if err != nil {
				return false, err
			}
			id, count, elem := readID(b, n), be32(b[n+4:]), b[n+8]
			es := typeSize(elem, n)
			if es == 0 || elem == typeObject {
				return false, fmt.Errorf("%w: primitive array of element type %d at offset %d", analyze.ErrMalformed, elem, at)
			}
			bodyEnd := s.pos()
			if sub == subPrimArrayDump {
				bodyEnd += int64(count) * int64(es)
			}
			if bodyEnd > end {
				return false, pastSegment(at, sub)
			}
			if err := v.object(objPrimArray, id, 0, count, elem, s); err != nil {
				return false, err
			}
			s.seek(bodyEnd)
		default:
			return false, fmt.Errorf("%w: unknown heap dump sub-record 0x%02x at offset %d", analyze.ErrMalformed, sub, at)
		}
	}
	if s.pos() != end {
		return false, fmt.Errorf("%w: heap dump segment ends at %d, its last sub-record at %d", analyze.ErrMalformed, end, s.pos())
	}
	return false, nil
}

// rootSize is the body size of a root sub-record (and of Android's heap info), -1
// for the other sub-records.
func rootSize(sub byte, n int) int {
	switch sub {
	case subRootUnknown, subRootStickyClass, subRootMonitorUsed,
		subAndroidInterned, subAndroidFinalizing, subAndroidDebugger,
		subAndroidRefCleanup, subAndroidVMInternal, subAndroidUnreach:
		return n
	case subRootJNIGlobal:
		return 2 * n
	case subRootNativeStack, subRootThreadBlock:
		return n + 4
	case subRootJNILocal, subRootJavaFrame, subRootThreadObject, subAndroidJNIMonitor:
		return n + 8
	case subAndroidHeapInfo:
		return 4 + n
	}
	return -1
}

func pastSegment(at int64, sub byte) error {
	return fmt.Errorf("%w: heap dump sub-record 0x%02x at offset %d runs past its segment", analyze.ErrMalformed, sub, at)
}

func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// readClassDump reads the body of a CLASS DUMP sub-record within end.
func readClassDump(s *scanner, end int64) (*classDump, error) {
	n := s.idSize
	at := s.pos() - 1
	fixed := 7*n + 8 + 2
	if s.pos()+int64(fixed) > end {
		return nil, pastSegment(at, subClassDump)
	}
	b, err := s.need(fixed)
	if err != nil {
		return nil, err
	}
	c := &classDump{id: readID(b, n), super: readID(b[n+4:], n), loader: readID(b[2*n+4:], n),
		instanceSize: be32(b[7*n+4:])}
	cp := int(uint16(b[7*n+8])<<8 | uint16(b[7*n+9]))
	for range cp {
		if s.pos()+3 > end {
			return nil, pastSegment(at, subClassDump)
		}
		h, err := s.need(3)
		if err != nil {
			return nil, err
		}
		typ := h[2]
		size := typeSize(typ, n)
		if size == 0 || s.pos()+int64(size) > end {
			return nil, fmt.Errorf("%w: constant pool entry of type %d in the class dump at offset %d", analyze.ErrMalformed, typ, at)
		}
		val, err := s.need(size)
		if err != nil {
			return nil, err
		}
		if typ == typeObject {
			if id := readID(val, n); id != 0 {
				c.cpRefs = append(c.cpRefs, id)
			}
		}
	}
	if s.pos()+2 > end {
		return nil, pastSegment(at, subClassDump)
	}
	ns, _ := s.u2()
	for range ns {
		if s.pos()+int64(n+1) > end {
			return nil, pastSegment(at, subClassDump)
		}
		h, err := s.need(n + 1)
		if err != nil {
			return nil, err
		}
		f := staticField{name: readID(h, n), typ: h[n]}
		size := typeSize(f.typ, n)
		if size == 0 || s.pos()+int64(size) > end {
			return nil, fmt.Errorf("%w: static field of type %d in the class dump at offset %d", analyze.ErrMalformed, f.typ, at)
		}
		val, err := s.need(size)
		if err != nil {
			return nil, err
		}
		if f.typ == typeObject {
			f.value = readID(val, n)
		}
		c.statics = append(c.statics, f)
	}
	if s.pos()+2 > end {
		return nil, pastSegment(at, subClassDump)
	}
	nf, _ := s.u2()
	if s.pos()+int64(nf)*int64(n+1) > end {
		return nil, pastSegment(at, subClassDump)
	}
	c.fields = make([]fieldDef, 0, nf)
	for range nf {
		h, err := s.need(n + 1)
		if err != nil {
			return nil, err
		}
		f := fieldDef{name: readID(h, n), typ: h[n]}
		if typeSize(f.typ, n) == 0 {
			return nil, fmt.Errorf("%w: instance field of type %d in the class dump at offset %d", analyze.ErrMalformed, f.typ, at)
		}
		c.fields = append(c.fields, f)
	}
	return c, nil
}
