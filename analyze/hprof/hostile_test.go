package hprof

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"testing"

	"github.com/leakui/leakui/analyze"
)

// hprofWriter writes small HPROF files for the hostile and fuzz tests: broken
// files, which no JVM writes. The tests of what the parser finds use real dumps.
type hprofWriter struct {
	buf    bytes.Buffer
	idSize int
}

func newHprofWriter(idSize int) *hprofWriter {
	w := &hprofWriter{idSize: idSize}
	w.buf.WriteString("JAVA PROFILE 1.0.2\x00")
	w.u4(uint32(idSize))
	w.u4(0)
	w.u4(0)
	return w
}

func (w *hprofWriter) u1(v byte)   { w.buf.WriteByte(v) }
func (w *hprofWriter) u2(v uint16) { w.buf.Write(binary.BigEndian.AppendUint16(nil, v)) }
func (w *hprofWriter) u4(v uint32) { w.buf.Write(binary.BigEndian.AppendUint32(nil, v)) }
func (w *hprofWriter) id(v uint64) {
	if w.idSize == 4 {
		w.u4(uint32(v))
		return
	}
	w.buf.Write(binary.BigEndian.AppendUint64(nil, v))
}

// record writes a top-level record whose body body writes; length overrides the
// length field when ≥ 0.
func (w *hprofWriter) record(tag byte, length int64, body func(b *hprofWriter)) {
	inner := &hprofWriter{idSize: w.idSize}
	body(inner)
	w.u1(tag)
	w.u4(0)
	if length < 0 {
		length = int64(inner.buf.Len())
	}
	w.u4(uint32(length))
	w.buf.Write(inner.buf.Bytes())
}

func (w *hprofWriter) utf8(id uint64, s string) {
	w.record(tagUTF8, -1, func(b *hprofWriter) { b.id(id); b.buf.WriteString(s) })
}

func (w *hprofWriter) loadClass(serial uint32, id, name uint64) {
	w.record(tagLoadClass, -1, func(b *hprofWriter) { b.u4(serial); b.id(id); b.u4(0); b.id(name) })
}

// classDump writes a CLASS DUMP with instance fields of the given names (UTF8 ids)
// and types.
func (b *hprofWriter) classDump(id, super uint64, fields [][2]uint64) {
	b.u1(subClassDump)
	b.id(id)
	b.u4(0)
	b.id(super)
	for range 5 {
		b.id(0)
	}
	size := 0
	for _, f := range fields {
		size += typeSize(byte(f[1]), b.idSize)
	}
	b.u4(uint32(size))
	b.u2(0)
	b.u2(0)
	b.u2(uint16(len(fields)))
	for _, f := range fields {
		b.id(f[0])
		b.u1(byte(f[1]))
	}
}

func (b *hprofWriter) instance(id, class uint64, refs ...uint64) {
	b.u1(subInstanceDump)
	b.id(id)
	b.u4(0)
	b.id(class)
	b.u4(uint32(len(refs) * b.idSize))
	for _, r := range refs {
		b.id(r)
	}
}

// loopDump is a dump of two Node objects that reference each other and themselves,
// one of them a GC root.
func loopDump(idSize int) []byte {
	w := newHprofWriter(idSize)
	w.utf8(1, "Node")
	w.utf8(2, "next")
	w.utf8(3, "self")
	w.loadClass(1, 100, 1)
	w.record(tagHeapDumpSegment, -1, func(b *hprofWriter) {
		b.u1(subRootStickyClass)
		b.id(100)
		b.u1(subRootJNIGlobal)
		b.id(200)
		b.id(0)
		b.classDump(100, 0, [][2]uint64{{2, typeObject}, {3, typeObject}})
		b.instance(200, 100, 300, 200)
		b.instance(300, 100, 200, 300)
	})
	return w.buf.Bytes()
}

// parseBytes parses data and builds its report.
func parseBytes(data []byte, opt Options) (*Report, error) {
	h, err := Parse(bytes.NewReader(data), int64(len(data)), opt)
	if err != nil {
		return nil, err
	}
	return h.NewReport(ReportOptions{}, nil)
}

// TestReferenceLoop reads objects that reference each other and themselves.
func TestReferenceLoop(t *testing.T) {
	for _, idSize := range []int{4, 8} {
		rep, err := parseBytes(loopDump(idSize), Options{})
		if err != nil {
			t.Fatal(err)
		}
		layout := defaultLayout(idSize)
		node := layout.InstanceSize(2 * layout.Ref)
		if rep.Objects != 3 || rep.Reachable != rep.Shallow || rep.Dominators[0].Class != "Node" || rep.Dominators[0].Retained != 2*node {
			t.Errorf("id size %d: %+v", idSize, rep)
		}
	}
}

// TestHostileInputs checks that broken dumps fail with a clear error, within bounded
// memory, and never panic.
func TestHostileInputs(t *testing.T) {
	good := loopDump(8)
	withIDSize3 := bytes.Clone(good)
	binary.BigEndian.PutUint32(withIDSize3[19:], 3)

	pastEnd := newHprofWriter(8)
	pastEnd.record(tagUTF8, 1<<30, func(b *hprofWriter) { b.id(1); b.buf.WriteString("x") })

	// 100 million objects declared in a file of a few hundred bytes: an object array
	// of 100,000,000 elements, a primitive array as long, a stack trace of as many
	// frames and a heap dump segment that claims 4 GiB.
	declared := func(body func(b *hprofWriter)) []byte {
		w := newHprofWriter(8)
		w.record(tagHeapDumpSegment, -1, body)
		w.buf.Write(make([]byte, 1024-w.buf.Len()%1024))
		return w.buf.Bytes()
	}
	bigObjArray := declared(func(b *hprofWriter) {
		b.u1(subObjArrayDump)
		b.id(1)
		b.u4(0)
		b.u4(100_000_000)
		b.id(2)
	})
	bigPrimArray := declared(func(b *hprofWriter) {
		b.u1(subPrimArrayDump)
		b.id(1)
		b.u4(0)
		b.u4(100_000_000)
		b.u1(typeLong)
	})
	bigTrace := newHprofWriter(8)
	bigTrace.record(tagStackTrace, 12+8, func(b *hprofWriter) { b.u4(1); b.u4(1); b.u4(100_000_000); b.id(1) })
	bigSegment := newHprofWriter(8)
	bigSegment.record(tagHeapDumpSegment, 1<<32-1, func(b *hprofWriter) { b.u1(subRootUnknown); b.id(1) })

	superLoop := newHprofWriter(8)
	superLoop.record(tagHeapDumpSegment, -1, func(b *hprofWriter) {
		b.classDump(100, 100, nil)
		b.instance(200, 100)
		b.u1(subRootUnknown)
		b.id(200)
	})
	unknownClass := newHprofWriter(8)
	unknownClass.record(tagHeapDumpSegment, -1, func(b *hprofWriter) { b.instance(200, 999) })
	duplicate := newHprofWriter(8)
	duplicate.record(tagHeapDumpSegment, -1, func(b *hprofWriter) {
		b.classDump(100, 0, nil)
		b.instance(200, 100)
		b.instance(200, 100)
	})

	cases := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, analyze.ErrEmpty},
		{"not hprof", []byte("hello, world\n"), analyze.ErrUnsupportedKind},
		{"version 1.0.3", []byte("JAVA PROFILE 1.0.3\x00\x00\x00\x00\x08"), analyze.ErrUnsupportedKind},
		{"identifier size 3", withIDSize3, analyze.ErrMalformed},
		{"record length past the end", pastEnd.buf.Bytes(), analyze.ErrMalformed},
		{"100 million array elements in 1 KB", bigObjArray, analyze.ErrMalformed},
		{"100 million long values in 1 KB", bigPrimArray, analyze.ErrMalformed},
		{"100 million frames", bigTrace.buf.Bytes(), analyze.ErrMalformed},
		{"a 4 GiB segment", bigSegment.buf.Bytes(), analyze.ErrMalformed},
		{"superclass loop", superLoop.buf.Bytes(), analyze.ErrMalformed},
		{"instance of an unknown class", unknownClass.buf.Bytes(), analyze.ErrMalformed},
		{"object dumped twice", duplicate.buf.Bytes(), analyze.ErrMalformed},
		{"no objects", newHprofWriter(8).buf.Bytes(), analyze.ErrMalformed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := parseBytes(c.data, Options{})
			runtime.ReadMemStats(&after)
			if !errors.Is(err, c.want) {
				t.Fatalf("error %v, want %v", err, c.want)
			}
			// The read buffer of a pass is 1 MiB; nothing grows with what the file
			// declares.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
				t.Errorf("allocated %d bytes for a %d-byte file", alloc, len(c.data))
			}
		})
	}
	// Every truncation of a good dump fails cleanly.
	for n := 1; n < len(good); n++ {
		if _, err := parseBytes(good[:n], Options{}); err == nil {
			t.Errorf("the dump cut to %d of %d bytes parsed", n, len(good))
		} else if !errors.Is(err, analyze.ErrMalformed) && !errors.Is(err, analyze.ErrUnsupportedKind) {
			t.Errorf("cut to %d bytes: %v", n, err)
		}
	}
	// Too many objects for the cap.
	if _, err := parseBytes(good, Options{MaxObjects: 2}); !errors.Is(err, analyze.ErrTooLarge) {
		t.Errorf("3 objects with a cap of 2: %v", err)
	}
}
