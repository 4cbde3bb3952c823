package hostile

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
)

// Valid HPROF heap dumps of pathological shapes: every record is well formed,
// as HotSpot's heap dumper writes it (openjdk/jdk
// src/hotspot/share/services/heapDumper.cpp, the format description at the top
// of that file), but the graph of objects is one a naive analysis turns into
// gigabytes of output or memory: a reference chain a million objects long, a
// ring as long, one array of ten million references, a class hierarchy a
// hundred thousand classes deep, twenty thousand native zlib streams held
// through finalizers.

// The HPROF record tags and heap dump sub-record tags the writer uses.
const (
	hprofUTF8        = 0x01
	hprofLoadClass   = 0x02
	hprofSegment     = 0x1C
	hprofSegmentEnd  = 0x2C
	hprofRootJNI     = 0x01
	hprofRootSticky  = 0x05
	hprofClassDump   = 0x20
	hprofInstance    = 0x21
	hprofObjArray    = 0x22
	hprofPrimArray   = 0x23
	hprofTypeObject  = 2
	hprofTypeBoolean = 4
	hprofTypeByte    = 8
	hprofTypeInt     = 10
	hprofTypeLong    = 11
)

// HprofField is an instance field or a static field of a class: its name and
// its HPROF basic type (2 object, 4 boolean, 8 byte, 10 int, 11 long); a static
// field has a value too.
type HprofField struct {
	Name  string
	Type  byte
	Value uint64
}

// Ref is an object reference field.
func Ref(name string) HprofField { return HprofField{Name: name, Type: hprofTypeObject} }

// Int is an int field.
func Int(name string) HprofField { return HprofField{Name: name, Type: hprofTypeInt} }

// Long is a long field.
func Long(name string) HprofField { return HprofField{Name: name, Type: hprofTypeLong} }

// StaticRef is a static reference field holding object id.
func StaticRef(name string, id uint64) HprofField {
	return HprofField{Name: name, Type: hprofTypeObject, Value: id}
}

// segmentLimit is the size at which the writer ends a HEAP DUMP SEGMENT and
// starts another (HotSpot's segments are of a like size).
const segmentLimit = 1 << 20

// HprofWriter writes a valid HPROF 1.0.2 heap dump to a stream: class names and
// classes as UTF8, LOAD CLASS and CLASS DUMP records, then instances, arrays and
// GC roots in HEAP DUMP SEGMENT records of about a megabyte. A class must be
// written (Class) before its instances. Values are written in the order the
// class declares its fields, then its superclass's, as HotSpot does. Close
// ends the dump.
type HprofWriter struct {
	w       *bufio.Writer
	idSize  int
	seg     []byte // the body of the segment being written
	names   map[string]uint64
	classes map[uint64]hprofClass // every class written
	next    uint64                // the next UTF8 id
	serial  uint32
	err     error
}

// hprofClass is what the writer keeps of a class: its own instance fields, its
// superclass and the size of an instance's field values.
type hprofClass struct {
	fields []HprofField
	super  uint64
	size   int
}

// NewHprofWriter starts a dump with identifiers of idSize bytes (4 or 8).
func NewHprofWriter(w io.Writer, idSize int) *HprofWriter {
	h := &HprofWriter{w: bufio.NewWriterSize(w, 1<<20), idSize: idSize, names: map[string]uint64{},
		classes: map[uint64]hprofClass{}, next: 1 << 40}
	if idSize == 4 {
		h.next = 1 << 30
	}
	h.w.WriteString("JAVA PROFILE 1.0.2\x00")
	h.w.Write(binary.BigEndian.AppendUint32(nil, uint32(idSize)))
	h.w.Write(binary.BigEndian.AppendUint64(nil, 1_700_000_000_000)) // the dump's time, ms
	return h
}

func (h *HprofWriter) appendID(b []byte, id uint64) []byte {
	if h.idSize == 4 {
		return binary.BigEndian.AppendUint32(b, uint32(id))
	}
	return binary.BigEndian.AppendUint64(b, id)
}

// record writes a top-level record.
func (h *HprofWriter) record(tag byte, body []byte) {
	var hd [9]byte
	hd[0] = tag
	binary.BigEndian.PutUint32(hd[5:], uint32(len(body)))
	h.w.Write(hd[:])
	h.w.Write(body)
}

// name returns the UTF8 id of s, writing the record the first time.
func (h *HprofWriter) name(s string) uint64 {
	if id, ok := h.names[s]; ok {
		return id
	}
	h.flush()
	id := h.next
	h.next++
	h.names[s] = id
	h.record(hprofUTF8, append(h.appendID(nil, id), s...))
	return id
}

// flush writes the segment being filled.
func (h *HprofWriter) flush() {
	if len(h.seg) > 0 {
		h.record(hprofSegment, h.seg)
		h.seg = h.seg[:0]
	}
}

// sub adds a sub-record to the current segment.
func (h *HprofWriter) sub(b []byte) {
	if len(h.seg)+len(b) > segmentLimit && len(h.seg) > 0 {
		h.flush()
	}
	h.seg = append(h.seg, b...)
}

func typeBytes(t byte, idSize int) int {
	switch t {
	case hprofTypeObject:
		return idSize
	case hprofTypeBoolean, hprofTypeByte:
		return 1
	case 5, 9: // char, short
		return 2
	case 6, hprofTypeInt: // float, int
		return 4
	}
	return 8 // double, long
}

// Class writes class id named name (Java's dotted name; the dump keeps the
// internal form with slashes) extending super (0 for none), with its static and
// instance fields.
func (h *HprofWriter) Class(id, super uint64, name string, statics, fields []HprofField) {
	internal := []byte(name)
	for i, c := range internal {
		if c == '.' {
			internal[i] = '/'
		}
	}
	nameID := h.name(string(internal))
	for _, f := range statics {
		h.name(f.Name)
	}
	for _, f := range fields {
		h.name(f.Name)
	}
	h.flush()
	h.serial++
	lc := binary.BigEndian.AppendUint32(nil, h.serial)
	lc = h.appendID(lc, id)
	lc = binary.BigEndian.AppendUint32(lc, 0)
	lc = h.appendID(lc, nameID)
	h.record(hprofLoadClass, lc)

	size := h.classes[super].size
	for _, f := range fields {
		size += typeBytes(f.Type, h.idSize)
	}
	h.classes[id] = hprofClass{fields: fields, super: super, size: size}
	b := []byte{hprofClassDump}
	b = h.appendID(b, id)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = h.appendID(b, super)
	for range 5 { // loader, signers, protection domain, two reserved
		b = h.appendID(b, 0)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(size))
	b = binary.BigEndian.AppendUint16(b, 0) // constant pool
	b = binary.BigEndian.AppendUint16(b, uint16(len(statics)))
	for _, f := range statics {
		b = h.appendID(b, h.names[f.Name])
		b = append(b, f.Type)
		b = h.appendValue(b, f.Type, f.Value)
	}
	b = binary.BigEndian.AppendUint16(b, uint16(len(fields)))
	for _, f := range fields {
		b = h.appendID(b, h.names[f.Name])
		b = append(b, f.Type)
	}
	h.sub(b)
}

func (h *HprofWriter) appendValue(b []byte, t byte, v uint64) []byte {
	switch typeBytes(t, h.idSize) {
	case 1:
		return append(b, byte(v))
	case 2:
		return binary.BigEndian.AppendUint16(b, uint16(v))
	case 4:
		return binary.BigEndian.AppendUint32(b, uint32(v))
	}
	return binary.BigEndian.AppendUint64(b, v)
}

// Instance writes an instance of class with the values of its fields, in the
// order Class listed them (its own, then its superclass's); missing values are
// zero (null).
func (h *HprofWriter) Instance(id, class uint64, values ...uint64) {
	c, ok := h.classes[class]
	if !ok && h.err == nil {
		h.err = fmt.Errorf("hostile: instance 0x%x of class 0x%x, which was not written", id, class)
	}
	b := make([]byte, 0, 1+2*h.idSize+8+c.size)
	b = append(b, hprofInstance)
	b = h.appendID(b, id)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = h.appendID(b, class)
	b = binary.BigEndian.AppendUint32(b, uint32(c.size))
	i := 0
	for k, ok := c, ok; ok; k, ok = h.classes[k.super] {
		for _, f := range k.fields {
			var v uint64
			if i < len(values) {
				v = values[i]
			}
			b = h.appendValue(b, f.Type, v)
			i++
		}
	}
	h.sub(b)
}

// ObjectArray writes an array of class arrayClass with n elements, element i
// being elem(i) (0 for null). Its elements go out in pieces: an array larger
// than a segment makes a segment of its own.
func (h *HprofWriter) ObjectArray(id, arrayClass uint64, n int, elem func(i int) uint64) {
	b := []byte{hprofObjArray}
	b = h.appendID(b, id)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	b = h.appendID(b, arrayClass)
	if total := len(b) + n*h.idSize; total > segmentLimit {
		// One record of exactly this sub-record, streamed.
		h.flush()
		var hd [9]byte
		hd[0] = hprofSegment
		binary.BigEndian.PutUint32(hd[5:], uint32(total))
		h.w.Write(hd[:])
		h.w.Write(b)
		var e []byte
		for i := range n {
			e = h.appendID(e[:0], elem(i))
			h.w.Write(e)
		}
		return
	}
	for i := range n {
		b = h.appendID(b, elem(i))
	}
	h.sub(b)
}

// ByteArray writes a byte[] holding data.
func (h *HprofWriter) ByteArray(id uint64, data []byte) {
	b := []byte{hprofPrimArray}
	b = h.appendID(b, id)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
	b = append(b, hprofTypeByte)
	h.sub(append(b, data...))
}

// StickyClassRoot makes class id a GC root, as the JVM's system classes are.
func (h *HprofWriter) StickyClassRoot(id uint64) {
	h.sub(h.appendID([]byte{hprofRootSticky}, id))
}

// GlobalRoot makes object id a GC root through a JNI global reference.
func (h *HprofWriter) GlobalRoot(id uint64) {
	h.sub(h.appendID(h.appendID([]byte{hprofRootJNI}, id), id+1))
}

// Close ends the dump (HEAP DUMP END) and flushes it; it returns the first
// error of the writer or the stream.
func (h *HprofWriter) Close() error {
	h.flush()
	h.record(hprofSegmentEnd, nil)
	if err := h.w.Flush(); err != nil {
		return err
	}
	return h.err
}

// The identifiers of the hostile dumps: classes from ClassIDs up, objects from
// ObjectIDs up, 8 apart as aligned addresses are.
const (
	classIDs  = 0x1000_0000
	objectIDs = 0x8_0000_0000
)

func obj(i int) uint64 { return objectIDs + 8*uint64(i) }

// classes writes java.lang.Object and java.lang.Class (every dump has them)
// and returns the next free class id.
func baseClasses(h *HprofWriter) uint64 {
	h.Class(classIDs, 0, "java.lang.Object", nil, nil)
	h.Class(classIDs+8, classIDs, "java.lang.Class", nil, nil)
	h.StickyClassRoot(classIDs)
	h.StickyClassRoot(classIDs + 8)
	return classIDs + 16
}

// ChainDump writes a linked list of n objects of class leak.Node (fields next
// and value), held by the static field head of class leak.Holder, a system
// class: with 8-byte identifiers, 33 bytes of dump an object. With ring set,
// the last node points back to the first. With reverse set, the nodes are
// dumped last first (a list built by prepending).
func ChainDump(w io.Writer, n int, ring, reverse bool) error {
	h := NewHprofWriter(w, 8)
	next := baseClasses(h)
	node, holder := next, next+8
	h.Class(node, classIDs, "leak.Node", nil, []HprofField{Ref("next"), Int("value")})
	h.Class(holder, classIDs, "leak.Holder", []HprofField{StaticRef("head", obj(0))}, nil)
	h.StickyClassRoot(holder)
	for k := range n {
		i := k
		if reverse {
			i = n - 1 - k
		}
		var nx uint64
		switch {
		case i+1 < n:
			nx = obj(i + 1)
		case ring:
			nx = obj(0)
		}
		h.Instance(obj(i), node, nx, uint64(i))
	}
	return h.Close()
}

// WideArrayDump writes one Object[] of refs elements, held by a JNI global
// reference, whose elements point in turn at items distinct leak.Item objects:
// a dominator tree node with items children, and refs references from one
// object (8 bytes each).
func WideArrayDump(w io.Writer, refs, items int) error {
	h := NewHprofWriter(w, 8)
	next := baseClasses(h)
	item, array := next, next+8
	h.Class(item, classIDs, "leak.Item", nil, []HprofField{Long("value")})
	h.Class(array, classIDs, "java.lang.Object[]", nil, nil)
	for i := range items {
		h.Instance(obj(1+i), item, uint64(i))
	}
	h.ObjectArray(obj(0), array, refs, func(i int) uint64 { return obj(1 + i%items) })
	h.GlobalRoot(obj(0))
	return h.Close()
}

// DeepClassesDump writes a class hierarchy depth classes deep (leak.C0 extends
// java.lang.Object, leak.Ck extends leak.C(k-1)), each declaring one reference
// field, and one instance of the deepest class, which has depth fields; only
// the deepest class is a GC root, so its superclasses hang off it in a chain
// of depth class objects. Every ten-thousandth class has an instance too, held by
// the deepest class's instance through its field f0.
func DeepClassesDump(w io.Writer, depth int) error {
	h := NewHprofWriter(w, 8)
	next := baseClasses(h)
	class := func(k int) uint64 { return next + 8*uint64(k) }
	for k := range depth {
		super := uint64(classIDs)
		if k > 0 {
			super = class(k - 1)
		}
		h.Class(class(k), super, fmt.Sprintf("leak.C%d", k), nil, []HprofField{Ref(fmt.Sprintf("f%d", k))})
	}
	deepest := class(depth - 1)
	h.StickyClassRoot(deepest)
	// The deepest instance's fields: its own first (f(depth-1)), then up to f0,
	// which is the last value.
	values := make([]uint64, depth)
	values[depth-1] = obj(1)
	h.Instance(obj(0), deepest, values...)
	h.GlobalRoot(obj(0))
	// A chain of instances of every ten-thousandth class, each through its f0.
	var chain []int
	for k := 0; k < depth; k += 10_000 {
		chain = append(chain, k)
	}
	for j, k := range chain {
		v := make([]uint64, k+1)
		if j+1 < len(chain) {
			v[k] = obj(2 + j)
		}
		h.Instance(obj(1+j), class(k), v...)
	}
	return h.Close()
}

// NativeHolderDump writes streams java.util.zip.Inflater objects as JDK 8
// kept them, each with its native zlib stream (the address its ZStreamRef
// holds) and an input buffer of bufSize bytes: half of them held by a
// java.util.ArrayList, the other half reachable only through the
// java.lang.ref.Finalizer objects of the JVM's unfinalized list
// (Finalizer.unfinalized, linked by next and prev), since Inflater declared
// finalize() in JDK 8; a Reference's referent is not a strong reference. The
// classes and their fields are those of JDK 8's java.lang.ref.Reference,
// FinalReference and Finalizer, java.util.ArrayList, java.util.zip.Inflater and
// java.util.zip.ZStreamRef.
func NativeHolderDump(w io.Writer, streams, bufSize int) error {
	h := NewHprofWriter(w, 8)
	next := baseClasses(h)
	id := func() uint64 { next += 8; return next - 8 }
	reference, finalRef, finalizer := id(), id(), id()
	list, objects, bytes := id(), id(), id()
	inflater, zsRef := id(), id()
	h.Class(reference, classIDs, "java.lang.ref.Reference", nil,
		[]HprofField{Ref("referent"), Ref("queue"), Ref("next"), Ref("discovered")})
	h.Class(finalRef, reference, "java.lang.ref.FinalReference", nil, nil)
	h.Class(finalizer, finalRef, "java.lang.ref.Finalizer", []HprofField{StaticRef("unfinalized", obj(0))},
		[]HprofField{Ref("next"), Ref("prev")})
	h.Class(list, classIDs, "java.util.ArrayList", nil, []HprofField{Ref("elementData"), Int("size")})
	h.Class(objects, classIDs, "java.lang.Object[]", nil, nil)
	h.Class(bytes, classIDs, "byte[]", nil, nil)
	h.Class(inflater, classIDs, "java.util.zip.Inflater", nil,
		[]HprofField{Ref("zsRef"), Ref("buf"), Int("off"), Int("len"), {Name: "finished", Type: hprofTypeBoolean},
			{Name: "needDict", Type: hprofTypeBoolean}, Long("bytesRead"), Long("bytesWritten")})
	h.Class(zsRef, classIDs, "java.util.zip.ZStreamRef", nil, []HprofField{Long("address")})
	for _, c := range []uint64{reference, finalRef, finalizer, list, objects, bytes, inflater, zsRef} {
		h.StickyClassRoot(c)
	}
	// Objects: obj(0) is the head of the unfinalized list; then per stream an
	// Inflater, its ZStreamRef and its buffer; then a Finalizer per stream of
	// the second half; then the list and its array.
	held := streams / 2
	finalized := streams - held
	const perStream = 3
	stream := func(i int) uint64 { return obj(1 + perStream*i) }
	fin := func(j int) uint64 {
		if j == 0 {
			return obj(0)
		}
		return obj(perStream*streams + j)
	}
	buf := make([]byte, bufSize)
	for i := range streams {
		h.Instance(stream(i), inflater, stream(i)+8, stream(i)+16, 0, uint64(bufSize))
		h.Instance(stream(i)+8, zsRef, 0x7f00_0000_0000+uint64(i)*0x1_0000)
		h.ByteArray(stream(i)+16, buf)
	}
	for j := range finalized {
		var nx, prev uint64
		if j+1 < finalized {
			nx = fin(j + 1)
		}
		if j > 0 {
			prev = fin(j - 1)
		}
		// Finalizer's next and prev, then Reference's referent, queue, next
		// and discovered.
		h.Instance(fin(j), finalizer, nx, prev, stream(held+j))
	}
	listID, arrayID := obj(perStream*streams+finalized), obj(perStream*streams+finalized+1)
	h.Instance(listID, list, arrayID, uint64(held))
	h.ObjectArray(arrayID, objects, held, func(i int) uint64 { return stream(i) })
	h.GlobalRoot(listID)
	return h.Close()
}

// WriteHprof writes a dump made by write to a new file at path.
func WriteHprof(path string, write func(io.Writer) error) error {
	return writeFile(path, write)
}
