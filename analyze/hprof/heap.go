package hprof

import (
	"context"
	"fmt"
	"hash/maphash"
	"io"
	"slices"
	"time"
	"unsafe"

	"github.com/leakui/leakui/analyze"
)

// noObject marks a missing object ordinal.
const noObject = ^uint32(0)

// DefaultMaxObjects is the default cap on the number of objects of a dump (about
// 40 bytes of memory each during the analysis).
const DefaultMaxObjects = 200_000_000

// Options tune Parse.
type Options struct {
	// MaxObjects caps the objects (instances, arrays and classes) a dump may hold;
	// beyond it Parse fails with ErrTooLarge. ≤ 0 means DefaultMaxObjects.
	MaxObjects int64
	// Layout overrides the object layout assumed for shallow sizes (by default
	// compressed oops for 8-byte identifiers, 32-bit HotSpot for 4-byte ones).
	Layout *Layout
	// Progress, when set, is called now and then with the stage ("read",
	// "index", "references", "strings", "dominators", "retained", "paths", then
	// NewReport's) and the fraction of it done. OnProgress gets the same
	// reports with the bytes of the dump read and the whole analysis's share
	// done.
	Progress func(stage string, done float64)
	// OnProgress, when set, is called with every progress report (see
	// Progress).
	OnProgress func(Progress)
	// Budget, when set, is charged what Parse and Analyze allocate before they
	// allocate it (the object tables once the objects are counted, the references,
	// the dominator tree's arrays), so a dump too big for it fails as soon as its size
	// is known, with an error wrapping analyze.ErrTooLarge or analyze.ErrBusy that
	// names the limit. Close gives it back. nil is unlimited. The arrays a large
	// dump keeps in temporary files (see TempDir) are charged while the analysis
	// reads them at random, not while they wait on the disk.
	Budget *analyze.Budget
	// Context, when set, stops Parse, Analyze and NewReport once it is done: they
	// check it at every progress report and every 65,536 objects of their long
	// loops, give back what they charged to Budget, and return an error wrapping
	// ctx.Err(). nil is never cancelled.
	Context context.Context
	// TempDir is where a dump of SpillFrom bytes or more keeps its arrays, in
	// unlinked temporary files mapped into memory ("" for os.TempDir): the
	// files vanish when the Heap is closed, or the process ends, however it
	// ends. Open sets it from OpenOptions.TempDir.
	TempDir string
	// MaxTemp caps the bytes of those files (ErrTooLarge beyond); ≤ 0 is the
	// disk's room (a full disk is an error wrapping syscall.ENOSPC).
	MaxTemp int64
	// sequential reads the references and the names, and counts the
	// objects, on the calling goroutine alone (the tests compare it with the
	// parallel work).
	sequential bool
}

// SpillFrom is the size from which a dump keeps the arrays it does not need
// in memory in temporary files: below it, everything is memory.
const SpillFrom = 64 << 20

// spillAlways makes every dump spill, for tests.
var spillAlways = false

// cancelCheckMask makes the long loops check Options.Context every 65,536 items.
const cancelCheckMask = 1<<16 - 1

// Root is one GC root record.
type Root struct {
	Ordinal uint32   `json:"object"`
	Kind    RootKind `json:"kind"`
	// Thread is the serial of the thread of a Java local, a JNI local, a native stack
	// or thread block root, or of a thread object; 0 for the others.
	Thread uint32 `json:"thread,omitempty"`
	// Frame is the depth of the stack frame of a Java or JNI local, -1 for others.
	Frame int32 `json:"frame"`
	trace uint32
}

// Heap is a parsed heap dump: its objects as ordinals with their class, shallow
// size and references, and, once Analyze ran, the dominator tree.
type Heap struct {
	// readChunks is how many chunks pass 2 read in parallel (0: read on one
	// goroutine), for the tests; nameChunks the same for the names' reading.
	readChunks, nameChunks int
	// cps are where pass 2 started reading, kept for the names' reading
	// (resolve.go); sequential is Options.sequential.
	cps        []checkpoint
	sequential bool
	// Version is the header's "JAVA PROFILE 1.0.2".
	Version string `json:"version"`
	// IDSize is the size of an identifier (4 or 8 bytes).
	IDSize int `json:"id_size"`
	// Time is the dump's time stamp.
	Time time.Time `json:"time"`
	// Layout is the object layout the shallow sizes assume.
	Layout Layout `json:"layout"`
	// Classes are every class, indexed by the class numbers of objects.
	Classes []*Class `json:"-"`
	// Roots are the GC roots whose object is in the dump, in the dump's order.
	Roots []Root `json:"-"`
	// Dangling counts references to identifiers that are not in the dump (skipped).
	Dangling int64 `json:"dangling_references"`

	file       io.ReaderAt
	closer     func() error
	fileSize   int64
	dataStart  int64
	names      map[uint64]string
	classByID  map[uint64]uint32
	loadNames  map[uint64]uint64 // class id → name id from LOAD CLASS
	serials    map[uint32]uint64 // class serial → class id
	frames     map[uint64]rawFrame
	traces     map[uint32]rawTrace
	threadObjs map[uint32]uint32 // thread serial → thread object ordinal

	ids       []uint64 // identifier of each ordinal
	class     []uint32 // class number of each ordinal
	size      []uint32 // shallow size of each ordinal (saturated at 4 GiB - 1)
	bigSize   map[uint32]int64
	sortedIDs []uint64 // ids sorted, when ids are not ascending
	sortedOrd []uint32
	index     idIndex

	out csr // references

	strings []stringRef // java.lang.String objects and their value arrays
	hashes  arrayHashes // content hashes of byte[] and char[], until duplicates are grouped
	dups    []dupGroup  // the duplicate strings, largest waste first
	threads []threadRef
	weak    []refRecord    // the references with a referent, by ordinal
	native  []nativeRecord // the objects holding native memory, by ordinal
	broken  []uint32       // the objects with a dangling reference, by ordinal
	// reach is each object's reachability (Reach…), once Analyze ran.
	reach []Reachability

	// Analysis, filled by Analyze.
	analyzed   bool
	idom       []uint32 // immediate dominator of each ordinal; root = len(ids); noObject unreachable
	retained   []uint64
	domKids    csr
	bfs        []uint32          // parent on a shortest path from a GC root; root = len(ids)
	depth      []uint32          // depth in the dominator tree (1 top level, 0 unreachable)
	pathDepth  []uint32          // steps on the shortest path from a GC root (1 for a root, 0 unreachable)
	pathRoot   []uint32          // the GC root that path starts at (noObject unreachable)
	pathVia    []uint32          // the field of the step before on that path (NewReport)
	reached    int               // the objects a strong path reaches
	classStats []classStat       // per class number (analyze.go)
	top        []uint32          // the top-level object above (noObject unreachable)
	texts      map[uint32]string // the texts of the objects the last report shows
	// The paths of the last report's suspects, for the index: each step's via
	// in pathVias, the names they index in pathNames; pathsCharged is what
	// they hold of the budget until Close.
	paths        []indexPath
	pathVias     []uint32
	pathNames    []string
	pathsCharged int64

	mem meter // what the Heap holds of Options.Budget
	// rs are the mappings of the per-object arrays (region.go).
	rs regions
	// prog reports the progress (progress.go).
	prog progressor
	// ctx is Options.Context (nil: never cancelled).
	ctx context.Context
}

type rawTrace struct {
	thread uint32
	frames []uint64
}

type stringRef struct {
	str, value uint32
	coder      uint8 // java.lang.String.coder: 0 Latin-1, 1 UTF-16
}

type threadRef struct {
	obj, name uint32 // name: ordinal of the name String, noObject if null
}

type arrayHashes struct {
	ord  []uint32
	hash []uint64
}

// Objects is the number of objects in the dump.
func (h *Heap) Objects() int { return len(h.ids) }

// ID is the identifier of object o.
func (h *Heap) ID(o uint32) uint64 { return h.ids[o] }

// ClassOf is the class of object o.
func (h *Heap) ClassOf(o uint32) *Class { return h.Classes[h.class[o]] }

// ShallowSize is the shallow size of object o under the heap's layout.
func (h *Heap) ShallowSize(o uint32) int64 {
	if s := h.size[o]; s != ^uint32(0) {
		return int64(s)
	}
	return h.bigSize[o]
}

// References are the objects o references (null and dangling references and
// java.lang.ref.Reference.referent are not edges).
func (h *Heap) References(o uint32) []uint32 { return h.out.row(o) }

// Parse reads a heap dump from r, size bytes long (an uncompressed HPROF file; see
// Open for gzip), in three passes. It fails with ErrUnsupportedKind for a file that
// is not HPROF, ErrMalformed for a broken one, ErrTooLarge beyond opt.MaxObjects.
// The Heap reads r again later (names, strings), so r must stay open while it is
// used.
func Parse(r io.ReaderAt, size int64, opt Options) (heap *Heap, err error) {
	if size == 0 {
		return nil, analyze.ErrEmpty
	}
	if opt.MaxObjects <= 0 {
		opt.MaxObjects = DefaultMaxObjects
	}
	s := newScanner(r, size)
	hd, err := readHeader(s)
	if err != nil {
		return nil, err
	}
	h := &Heap{
		Version: hd.version, IDSize: hd.idSize, Time: time.UnixMilli(hd.millis).UTC(),
		file: r, fileSize: size, dataStart: hd.end,
		names: map[uint64]string{}, classByID: map[uint64]uint32{}, loadNames: map[uint64]uint64{},
		serials: map[uint32]uint64{}, frames: map[uint64]rawFrame{}, traces: map[uint32]rawTrace{},
		threadObjs: map[uint32]uint32{}, bigSize: map[uint32]int64{},
		mem: meter{budget: opt.Budget}, ctx: opt.Context,
	}
	h.rs = regions{dir: opt.TempDir, spill: size >= SpillFrom || spillAlways, mem: &h.mem, maxDisk: opt.MaxTemp}
	h.prog = progressor{size: size, dumpStart: hd.end, progress: opt.Progress, on: opt.OnProgress}
	done := false
	defer func() {
		if !done { // an error, or a panic unwinding the parse (a progress callback may)
			h.rs.freeAll()
			h.mem.release()
		}
	}()
	h.Layout = defaultLayout(hd.idSize)
	if opt.Layout != nil {
		h.Layout = *opt.Layout
	}
	// An object takes at least 10 bytes and an identifier in the dump (a
	// primitive array of no elements), a reference an identifier: the growing
	// arrays reserve that much address space, and take memory or disk as they
	// grow.
	maxObjects := min(opt.MaxObjects, size/int64(10+hd.idSize)+1, int64(noObject)-2)
	maxRefs := min(size/int64(hd.idSize)+1, int64(noObject)-1)
	p1 := &pass1{h: h, max: opt.MaxObjects, s: s, seed: maphash.MakeSeed()}
	if err := p1.init(int(maxObjects)); err != nil {
		return nil, err
	}
	if err := h.mem.err; err != nil {
		return nil, err
	}
	if err := h.report(stageRead, 0, 0); err != nil {
		return nil, err
	}
	if err := walk(s, hd.end, p1); err != nil {
		return nil, err
	}
	if err := h.mem.flush(); err != nil {
		return nil, err
	}
	p1.finish()
	if len(h.ids) == 0 {
		return nil, fmt.Errorf("%w: the dump holds no heap objects", analyze.ErrMalformed)
	}
	// The object count is known: the arrays the analysis will hold at its peak
	// must fit beside what the heap keeps.
	if err := h.mem.probe(h.peakBytes(int64(len(h.ids)), 0),
		fmt.Sprintf("the analysis of %d objects", len(h.ids))); err != nil {
		return nil, err
	}
	if err := h.report(stageIndex, 0, 0); err != nil {
		return nil, err
	}
	if err := h.buildIndex(); err != nil {
		return nil, err
	}
	if err := h.resolveClasses(); err != nil {
		return nil, err
	}
	h.fixSizes()
	if err := h.report(stageReferences, 0, 0); err != nil {
		return nil, err
	}
	if err := h.readRefs(p1.cps, int(maxRefs), opt.sequential); err != nil {
		return nil, err
	}
	h.cps, h.sequential = p1.cps, opt.sequential
	p1.cps = nil
	if err := h.resolveRoots(p1.roots); err != nil {
		return nil, err
	}
	h.mem.uncharge(p1.rootsCharged)
	p1.roots = nil
	h.dropIndex()
	if err := h.report(stageStrings, 0, 0); err != nil {
		return nil, err
	}
	if h.dups, err = h.duplicateStrings(); err != nil {
		return nil, err
	}
	free(&h.rs, h.hashes.ord)
	free(&h.rs, h.hashes.hash)
	h.hashes = arrayHashes{}
	if err := h.mem.flush(); err != nil {
		return nil, err
	}
	// The references are known: the dominators' arrays must fit beside the heap.
	n, e := int64(len(h.ids)), int64(len(h.out.targets))
	if err := h.mem.probe(h.peakBytes(n, e),
		fmt.Sprintf("the analysis of %d objects and %d references", n, e)); err != nil {
		return nil, err
	}
	done = true
	return h, nil
}

// pass1 collects the names, classes, stack traces, roots and, for every object, its
// identifier, class and (for arrays) shallow size.
type pass1 struct {
	h            *Heap
	max          int64
	s            *scanner
	seed         maphash.Seed
	ids          *grower[uint64]
	cls          *grower[uint32]
	size         *grower[uint32]
	hashOrd      *grower[uint32]
	hashVal      *grower[uint64]
	roots        []rawRoot
	rootsCharged int64        // what roots has charged
	cps          []checkpoint // where pass 2 may start reading (pass2.go)
	prim         [12]uint32   // class number of each primitive array type
	classCls     uint32       // class number of java.lang.Class
	n            uint32
}

type rawRoot struct {
	id            uint64
	kind          RootKind
	thread, trace uint32
	frame         int32
}

// init maps the growing per-object arrays, for at most max objects.
func (p *pass1) init(max int) error {
	rs := &p.h.rs
	var err error
	if p.ids, err = newGrower[uint64](rs, max, streamed, "object identifiers"); err != nil {
		return err
	}
	if p.cls, err = newGrower[uint32](rs, max, streamed, "object classes"); err != nil {
		return err
	}
	if p.size, err = newGrower[uint32](rs, max, streamed, "object sizes"); err != nil {
		return err
	}
	if p.hashOrd, err = newGrower[uint32](rs, max, streamed, "array hashes"); err != nil {
		return err
	}
	if p.hashVal, err = newGrower[uint64](rs, max, streamed, "array hashes"); err != nil {
		return err
	}
	for t := byte(typeBoolean); t <= typeLong; t++ {
		p.prim[t] = p.h.addClass(&Class{Name: primName(t), kind: objPrimArray, elem: t, super: noClass, ordinal: noObject, loader: noObject, dumped: true})
	}
	p.classCls = p.h.addClass(&Class{Name: "java.lang.Class", kind: objClass, super: noClass, ordinal: noObject, loader: noObject, dumped: true})
	return nil
}

func (h *Heap) addClass(c *Class) uint32 {
	h.mem.chargeSmall(classSize, "classes")
	h.Classes = append(h.Classes, c)
	return uint32(len(h.Classes) - 1)
}

// classNumber is the class number of class identifier id, created on first sight.
func (h *Heap) classNumber(id uint64, kind objKind) uint32 {
	if n, ok := h.classByID[id]; ok {
		return n
	}
	n := h.addClass(&Class{ID: id, kind: kind, super: noClass, ordinal: noObject, loader: noObject})
	h.classByID[id] = n
	return n
}

// The approximate sizes of what pass 1 keeps besides the per-object arrays: a
// class, a map entry, a root.
const (
	classSize   = 256
	mapEntry    = 48
	rawRootSize = 32
)

func (p *pass1) utf8(id uint64, text []byte) {
	p.h.mem.chargeSmall(int64(len(text))+mapEntry, "names")
	p.h.names[id] = string(text)
}

func (p *pass1) failed() error { return p.h.mem.err }

func (p *pass1) loadClass(serial uint32, classID, nameID uint64) {
	p.h.mem.chargeSmall(2*mapEntry, "classes")
	p.h.loadNames[classID] = nameID
	p.h.serials[serial] = classID
}

func (p *pass1) stackFrame(f rawFrame) {
	p.h.mem.chargeSmall(mapEntry+48, "stack frames")
	p.h.frames[f.id] = f
}

func (p *pass1) stackTrace(serial, thread uint32, frames []uint64) {
	p.h.mem.chargeSmall(mapEntry+8*int64(len(frames)), "stack traces")
	p.h.traces[serial] = rawTrace{thread: thread, frames: frames}
}

func (p *pass1) root(kind RootKind, id uint64, thread uint32, frame int32, trace uint32) {
	if len(p.roots) == cap(p.roots) {
		grow := int64(max(cap(p.roots), 64)) * rawRootSize
		p.rootsCharged += grow
		p.h.mem.chargeSmall(grow, "GC roots")
	}
	p.roots = append(p.roots, rawRoot{id: id, kind: kind, thread: thread, frame: frame, trace: trace})
}

func (p *pass1) add(id uint64, class, size uint32) error {
	if int64(p.n) >= p.max {
		return fmt.Errorf("%w: more than %d objects in the dump", analyze.ErrTooLarge, p.max)
	}
	if k := len(p.cps); k == 0 || p.n-p.cps[k-1].ord >= chunkObjects || p.s.subAt-p.cps[k-1].off >= chunkBytes {
		p.h.mem.chargeSmall(int64(unsafe.Sizeof(checkpoint{})), "the checkpoints of the references' reading")
		p.cps = append(p.cps, checkpoint{off: p.s.subAt, segEnd: p.s.segEnd, ord: p.n})
	}
	if err := p.ids.add(id); err != nil {
		return err
	}
	if err := p.cls.add(class); err != nil {
		return err
	}
	if err := p.size.add(size); err != nil {
		return err
	}
	p.n++
	if p.n&cancelCheckMask == 0 {
		return p.h.reportPass(stageRead, p.s)
	}
	return nil
}

// sortStoppable sorts s by cmp, checking Options.Context every million
// comparisons: a sort of a hundred million values stops within a second.
func sortStoppable[T any](h *Heap, s []T, cmp func(a, b T) int) (err error) {
	if h.ctx == nil || len(s) < 1<<16 {
		slices.SortFunc(s, cmp)
		return nil
	}
	defer func() {
		if p := recover(); p != nil {
			st, ok := p.(sortStopped)
			if !ok {
				panic(p)
			}
			err = st.err
		}
	}()
	n := 0
	slices.SortFunc(s, func(a, b T) int {
		if n++; n&(1<<20-1) == 0 {
			if err := h.stopped(); err != nil {
				panic(sortStopped{err})
			}
		}
		return cmp(a, b)
	})
	return nil
}

// sortStopped unwinds a sort that its context stopped.
type sortStopped struct{ err error }

// stopped is the error that stops the work once Options.Context is done, nil
// before.
func (h *Heap) stopped() error {
	if h.ctx == nil {
		return nil
	}
	if err := h.ctx.Err(); err != nil {
		return fmt.Errorf("hprof: the analysis was stopped: %w", err)
	}
	return nil
}

func (p *pass1) class(d *classDump) error {
	n := p.h.classNumber(d.id, objInstance)
	c := p.h.Classes[n]
	if c.dumped {
		return fmt.Errorf("%w: class 0x%x dumped twice", analyze.ErrMalformed, d.id)
	}
	c.dumped, c.superID, c.loaderID, c.dumpSize = true, d.super, d.loader, d.instanceSize
	c.fields, c.statics, c.cpRefs = d.fields, d.statics, d.cpRefs
	c.ordinal = p.n
	var size int64 = 0
	for _, f := range d.statics {
		if f.typ == typeObject {
			size += p.h.Layout.Ref
		} else {
			size += int64(typeSize(f.typ, 8))
		}
	}
	return p.add(d.id, p.classCls, sat32(size))
}

func (p *pass1) object(kind objKind, id, classID uint64, n uint32, elem byte, s *scanner) error {
	switch kind {
	case objInstance:
		return p.add(id, p.h.classNumber(classID, objInstance), 0)
	case objObjArray:
		cn := p.h.classNumber(classID, objObjArray)
		p.h.Classes[cn].kind = objObjArray
		return p.add(id, cn, sat32(p.h.Layout.ArraySize(int64(n), p.h.Layout.Ref)))
	}
	es := typeSize(elem, 8)
	if (elem == typeByte || elem == typeChar) && int64(n)*int64(es) <= maxHashed {
		data, err := s.need(int(n) * es)
		if err != nil {
			return err
		}
		if err := p.hashOrd.add(p.n); err != nil {
			return err
		}
		if err := p.hashVal.add(maphash.Bytes(p.seed, data)); err != nil {
			return err
		}
	}
	return p.add(id, p.prim[elem], sat32(p.h.Layout.ArraySize(int64(n), int64(es))))
}

// maxHashed is the largest byte[] or char[] whose content is hashed for the
// duplicate strings.
const maxHashed = 64 << 10

func sat32(v int64) uint32 {
	if v >= int64(^uint32(0)) {
		return ^uint32(0)
	}
	return uint32(v)
}

func (p *pass1) finish() {
	h := p.h
	h.ids, h.class, h.size = p.ids.done(), p.cls.done(), p.size.done()
	h.hashes.ord, h.hashes.hash = p.hashOrd.done(), p.hashVal.done()
}

// fixSizes sets the shallow size of every instance from its class, and keeps the
// exact size of the arrays larger than 4 GiB.
func (h *Heap) fixSizes() {
	java := h.classByName("java.lang.Class")
	qc, qs := scan(&h.rs, h.class), scan(&h.rs, h.size)
	defer qc.end()
	defer qs.end()
	for o, cn := range h.class {
		if o&cancelCheckMask == 0 {
			qc.at(o)
			qs.at(o)
		}
		c := h.Classes[cn]
		switch c.kind {
		case objInstance:
			h.size[o] = c.shallow
		case objClass:
			if java != nil {
				h.size[o] = sat32(int64(h.size[o]) + int64(java.shallow))
			} else {
				h.size[o] = sat32(h.Layout.InstanceSize(int64(h.size[o])))
			}
		}
	}
}

// classByName finds a class by its Java name (the first one, if several loaders
// loaded it), nil if none.
func (h *Heap) classByName(name string) *Class {
	for _, c := range h.Classes {
		if c.Name == name && c.kind != objClass {
			return c
		}
	}
	return nil
}

// resolveClasses names every class, links superclasses and computes each instance
// class's layout: the offsets of its reference fields in the dump (without
// java.lang.ref.Reference.referent) and its shallow size.
func (h *Heap) resolveClasses() error {
	for _, c := range h.Classes {
		if c.ID == 0 {
			continue
		}
		if nameID, ok := h.loadNames[c.ID]; ok {
			if name, ok := h.names[nameID]; ok {
				c.Name = clip(javaName(name))
			}
		}
		if c.Name == "" {
			c.Name = fmt.Sprintf("class@0x%x", c.ID)
		}
		if c.superID != 0 {
			if sn, ok := h.classByID[c.superID]; ok {
				c.super = sn
			}
		}
	}
	return h.resolveLayouts()
}

// classLayout is what resolveLayouts works out for a class from its fields and
// its superclasses': the size of an instance's field data in the dump and on
// the heap, its reference fields, and the nearest class up the hierarchy (itself
// included) that declares one (refFrom), so that listing them skips the classes
// that declare none.
type classLayout struct {
	fieldBytes, heapBytes int64
	refs                  int
	refFrom               uint32
	thread                bool
	state                 uint8 // 0 not yet, 1 on the walk, 2 done
	// decl is, for each JDK class whose fields the analysis reads (native.go),
	// the class up the hierarchy with its name, noClass when none.
	decl [declCount]uint32
}

// resolveLayouts computes each instance class's layout: the offsets of its
// reference fields in the dump (without java.lang.ref.Reference.referent), its
// shallow size, whether it is a thread. Each class is worked out once from its
// superclass, so a hierarchy thousands of classes deep costs no more than
// its classes; the offsets are listed only for the classes that have
// instances, charged to the budget first.
func (h *Heap) resolveLayouts() error {
	nc := len(h.Classes)
	if err := h.mem.charge(int64(nc)*int64(unsafe.Sizeof(classLayout{})+4+1), "the class layouts"); err != nil {
		return err
	}
	defer h.mem.uncharge(int64(nc) * int64(unsafe.Sizeof(classLayout{})+4+1))
	lay := make([]classLayout, nc)
	var walk []uint32
	for ci, c := range h.Classes {
		if c.kind != objInstance || !c.dumped || lay[ci].state == 2 {
			continue
		}
		walk = walk[:0]
		for k := uint32(ci); lay[k].state != 2; {
			kc := h.Classes[k]
			if lay[k].state == 1 {
				return fmt.Errorf("%w: the superclasses of %s form a loop", analyze.ErrMalformed, c.Name)
			}
			if !kc.dumped {
				return fmt.Errorf("%w: superclass 0x%x of %s is not in the dump", analyze.ErrMalformed, kc.ID, c.Name)
			}
			lay[k].state = 1
			walk = append(walk, k)
			if kc.super == noClass {
				break
			}
			k = kc.super
		}
		for i := len(walk) - 1; i >= 0; i-- {
			k := walk[i]
			kc := h.Classes[k]
			l := classLayout{refFrom: noClass}
			for i := range l.decl {
				l.decl[i] = noClass
			}
			if kc.super != noClass {
				l = lay[kc.super]
			}
			if d, ok := declNames[kc.Name]; ok {
				l.decl[d] = k
			}
			l.thread = l.thread || kc.Name == "java.lang.Thread"
			isRef := kc.Name == "java.lang.ref.Reference"
			own := 0
			for _, f := range kc.fields {
				if f.typ == typeObject {
					if !(isRef && h.names[f.name] == "referent") {
						own++
					}
					l.heapBytes += h.Layout.Ref
				} else {
					l.heapBytes += int64(typeSize(f.typ, 8))
				}
				l.fieldBytes += int64(typeSize(f.typ, h.IDSize))
			}
			if l.fieldBytes > 1<<24 {
				return fmt.Errorf("%w: class %s declares %d bytes of fields", analyze.ErrMalformed, kc.Name, l.fieldBytes)
			}
			l.refs += own
			if own > 0 {
				l.refFrom = k
			}
			l.state = 2
			lay[k] = l
		}
	}
	used := make([]bool, nc)
	q := scan(&h.rs, h.class)
	for o, cn := range h.class {
		used[cn] = true
		if o&cancelCheckMask == 0 {
			q.at(o)
		}
	}
	q.end()
	var refs int64
	for ci, c := range h.Classes {
		if c.kind == objInstance && c.dumped && used[ci] {
			refs += int64(lay[ci].refs)
		}
	}
	if err := h.mem.charge(12*refs, "the classes' reference fields"); err != nil {
		return err
	}
	for ci, c := range h.Classes {
		if c.kind != objInstance || !c.dumped {
			continue
		}
		l := lay[ci]
		c.fieldBytes, c.isThread = uint32(l.fieldBytes), l.thread
		c.shallow = sat32(h.Layout.InstanceSize(l.heapBytes))
		c.isString = c.Name == "java.lang.String"
		c.coderAt = -1
		if c.isString {
			var at int64
			for _, f := range c.fields {
				if f.typ == typeByte && h.names[f.name] == "coder" {
					c.coderAt = int32(at)
				}
				at += int64(typeSize(f.typ, h.IDSize))
			}
		}
		if !used[ci] {
			continue
		}
		c.special = h.specialOf(lay, ci)
		if l.refs == 0 {
			continue
		}
		c.refOffsets, c.refNames = make([]uint32, 0, l.refs), make([]uint64, 0, l.refs)
		// A class's own fields come first in an instance's data, then its
		// superclass's: those of class k start fieldBytes(c) - fieldBytes(k) in.
		for k := l.refFrom; k != noClass; {
			kc := h.Classes[k]
			off := l.fieldBytes - lay[k].fieldBytes
			isRef := kc.Name == "java.lang.ref.Reference"
			for _, f := range kc.fields {
				if f.typ == typeObject && !(isRef && h.names[f.name] == "referent") {
					c.refOffsets = append(c.refOffsets, uint32(off))
					c.refNames = append(c.refNames, f.name)
				}
				off += int64(typeSize(f.typ, h.IDSize))
			}
			if kc.super == noClass {
				break
			}
			k = lay[kc.super].refFrom
		}
	}
	return nil
}

// idIndex finds the position of an identifier in a sorted table: a bucket table
// over the identifiers' range narrows the binary search to a few entries.
type idIndex struct {
	min     uint64
	shift   uint
	buckets []uint32 // buckets[b] is the first position whose (id-min)>>shift ≥ b
}

// buildIndex sorts the identifiers (when the dump did not list them in order),
// refuses duplicates and builds the bucket table.
func (h *Heap) buildIndex() error {
	if err := hold(&h.rs, h.ids); err != nil {
		return err
	}
	sorted := h.ids
	if !slices.IsSorted(h.ids) {
		ord, err := makeArray[uint32](&h.rs, len(h.ids), scratch, "the sorted identifiers")
		if err != nil {
			return err
		}
		if err := h.sortOrdinals(ord); err != nil {
			return err
		}
		if sorted, err = makeArray[uint64](&h.rs, len(ord), scratch, "the sorted identifiers"); err != nil {
			return err
		}
		for i, o := range ord {
			sorted[i] = h.ids[o]
		}
		h.sortedIDs, h.sortedOrd = sorted, ord
		release(&h.rs, h.ids)
	}
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return fmt.Errorf("%w: object 0x%x is dumped twice", analyze.ErrMalformed, sorted[i])
		}
	}
	n := len(sorted)
	lo, hi := sorted[0], sorted[n-1]
	nb := 1
	for nb < n/8 && nb < 1<<25 {
		nb <<= 1
	}
	shift := uint(0)
	for (hi-lo)>>shift >= uint64(nb) {
		shift++
	}
	buckets, err := makeArray[uint32](&h.rs, nb+1, scratch, "the identifier index")
	if err != nil {
		return err
	}
	j := 0
	for b := 0; b <= nb; b++ {
		for j < n && (sorted[j]-lo)>>shift < uint64(b) {
			j++
		}
		buckets[b] = uint32(j)
	}
	h.index = idIndex{min: lo, shift: shift, buckets: buckets}
	return nil
}

// sortOrdinals fills ord with the ordinals in the order of their identifiers.
// A dump lists its objects by address within runs (HotSpot writes the class
// objects first, then walks each space of the heap in address order): when a
// few long runs hold most objects, the runs are merged, with the objects of the
// short runs sorted on their own and merged in; otherwise every ordinal is
// sorted.
func (h *Heap) sortOrdinals(ord []uint32) error {
	ids := h.ids
	const longRun = 4096
	type run struct{ at, end int }
	var runs []run
	short := 0
	start := 0
	for i := 1; i <= len(ids); i++ {
		if i == len(ids) || ids[i] < ids[i-1] {
			if i-start >= longRun {
				runs = append(runs, run{start, i})
			} else {
				short += i - start
			}
			start = i
		}
	}
	if len(runs) == 0 || len(runs) > 64 || short > len(ids)/16 {
		for i := range ord {
			ord[i] = uint32(i)
		}
		return sortStoppable(h, ord, func(a, b uint32) int { return cmpUint64(ids[a], ids[b]) })
	}
	// The short runs' ordinals, sorted, at the end of ord, are one more run.
	rest := ord[len(ord)-short:]
	k, ri := 0, 0
	for i := 0; i < len(ids); i++ {
		if ri < len(runs) && i == runs[ri].at {
			i = runs[ri].end - 1
			ri++
			continue
		}
		rest[k] = uint32(i)
		k++
	}
	slices.SortFunc(rest, func(a, b uint32) int { return cmpUint64(ids[a], ids[b]) })
	if short > 0 {
		// A run of ordinals of its own: merged through an indirection below.
		runs = append(runs, run{-1, -1})
	}
	// Merge: each run's cursor, the smallest head taken each time (few runs).
	cur := make([]int, len(runs))
	ends := make([]int, len(runs))
	for r, x := range runs {
		if x.at < 0 {
			cur[r], ends[r] = 0, short
		} else {
			cur[r], ends[r] = x.at, x.end
		}
	}
	head := func(r int) uint32 {
		if runs[r].at < 0 {
			return rest[cur[r]]
		}
		return uint32(cur[r])
	}
	// The merge writes ord from the front; the short runs' ordinals sit at its
	// end, and are each read before the front reaches them (the front is at
	// most as far as the ordinals taken).
	for out := 0; out < len(ord); out++ {
		best := -1
		var bestID uint64
		for r := range runs {
			if cur[r] < ends[r] {
				if id := ids[head(r)]; best < 0 || id < bestID {
					best, bestID = r, id
				}
			}
		}
		ord[out] = head(best)
		cur[best]++
		if out&cancelCheckMask == 0 {
			if err := h.stopped(); err != nil {
				return err
			}
		}
	}
	return nil
}

func cmpUint64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// dropIndex gives back the identifier index once the references and the roots
// are read: the only lookups by identifier.
func (h *Heap) dropIndex() {
	free(&h.rs, h.sortedIDs)
	free(&h.rs, h.sortedOrd)
	free(&h.rs, h.index.buckets)
	h.sortedIDs, h.sortedOrd, h.index = nil, nil, idIndex{}
	release(&h.rs, h.ids)
}

// ordinal is the ordinal of identifier id, noObject when no object has it.
func (h *Heap) ordinal(id uint64) uint32 {
	ix := &h.index
	if id < ix.min || len(ix.buckets) == 0 {
		return noObject
	}
	b := (id - ix.min) >> ix.shift
	if b >= uint64(len(ix.buckets)-1) {
		return noObject
	}
	sorted := h.ids
	if h.sortedIDs != nil {
		sorted = h.sortedIDs
	}
	lo, hi := int(ix.buckets[b]), int(ix.buckets[b+1])
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if sorted[m] < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(sorted) && sorted[lo] == id {
		if h.sortedOrd != nil {
			return h.sortedOrd[lo]
		}
		return uint32(lo)
	}
	return noObject
}

// resolveRoots keeps the roots whose object is in the dump and notes the thread
// objects by serial.
func (h *Heap) resolveRoots(raw []rawRoot) error {
	if err := h.mem.charge(int64(len(raw))*int64(unsafe.Sizeof(Root{})), "GC roots"); err != nil {
		return err
	}
	for _, r := range raw {
		o := h.ordinal(r.id)
		if o == noObject {
			continue
		}
		h.Roots = append(h.Roots, Root{Ordinal: o, Kind: r.kind, Thread: r.thread, Frame: r.frame, trace: r.trace})
		if r.kind == RootThreadObject {
			h.threadObjs[r.thread] = o
		}
	}
	return nil
}
