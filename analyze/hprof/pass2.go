package hprof

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/leakui/leakui/analyze"
)

// pass2 reads the references of every object into the CSR graph, in the ordinals of
// pass 1 (the same records in the same order), and notes the strings' value arrays
// and the threads' names. The dump is read in chunks between the checkpoints of
// pass 1, by a goroutine a core (readRefs); each hands its values over in
// batches, which the calling goroutine appends to the arrays in the dump's
// order (refOut), so that the arrays are the same whoever read which chunk.
type pass2 struct {
	h          *Heap
	s          *scanner
	n          uint32    // the next object's ordinal
	b          *refBatch // the values read since the last hand-over
	lastBroken uint32    // the last object noted with a dangling reference
	// flush hands b over (and returns an empty batch) every 65,536 objects
	// and when b holds maxBatchRefs references.
	flush func(b *refBatch) (*refBatch, error)
}

// A refBatch is what pass 2 read of consecutive objects: offsets are the first
// reference of each object begun, counted from the batch's first reference (an
// object array may go on in the next batch); end is how far into the dump.
type refBatch struct {
	offsets  []uint32
	targets  []uint32
	strings  []stringRef
	weak     []refRecord
	native   []nativeRecord
	broken   []uint32
	threads  []threadRef
	loaders  []classLoader
	dangling int64
	end      int64
	last     bool  // the last batch of its chunk
	err      error // what stopped the chunk's reading (last is set)
	charged  int64 // the memory charged for it
}

// capBytes is the memory the batch's arrays take.
func (b *refBatch) capBytes() int64 {
	return int64(4*(cap(b.offsets)+cap(b.targets)+cap(b.broken)) + 12*(cap(b.strings)+cap(b.weak)) +
		24*cap(b.native) + 8*(cap(b.threads)+cap(b.loaders)))
}

// classLoader is the loader (an ordinal) a class dump names.
type classLoader struct{ class, loader uint32 }

func (b *refBatch) reset() {
	b.offsets, b.targets, b.strings, b.weak = b.offsets[:0], b.targets[:0], b.strings[:0], b.weak[:0]
	b.native, b.broken, b.threads, b.loaders = b.native[:0], b.broken[:0], b.threads[:0], b.loaders[:0]
	b.dangling, b.end, b.last, b.err = 0, 0, false, nil
}

// A batch is handed over every batchMask+1 objects, and when it holds
// maxBatchRefs references.
const (
	batchMask    = 1<<14 - 1
	maxBatchRefs = 1 << 18
)

// A checkpoint is where pass 2 may start reading: the sub-record of object ord
// at offset off, in the heap dump segment that ends at segEnd. Pass 1 notes one
// every chunkObjects objects or chunkBytes bytes of the dump.
type checkpoint struct {
	off, segEnd int64
	ord         uint32
}

// chunkObjects and chunkBytes are how far apart the checkpoints are at most
// (variables for the tests, which make them small).
var (
	chunkObjects uint32 = 1 << 18
	chunkBytes   int64  = 16 << 20
)

// refOut are the arrays pass 2 makes, appended in the dump's order.
type refOut struct {
	h        *Heap
	offsets  *grower[uint32]
	targets  *grower[uint32]
	strings  *grower[stringRef]
	weak     *grower[refRecord]    // the java.lang.ref.Reference objects and their referents
	broken   *grower[uint32]       // the objects with a dangling reference
	native   *grower[nativeRecord] // the objects whose native fields were read
	threads  []threadRef
	ids      sequence // the pass reads ids and class front to back
	cls      sequence
	n        uint32 // objects appended
	dangling int64
}

// init maps the references' arrays, for at most maxRefs references.
func (p *refOut) init(maxRefs int) error {
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

// add appends batch b and reports the progress.
func (p *refOut) add(b *refBatch) error {
	base := len(p.targets.s)
	if int64(base)+int64(len(b.targets)) >= int64(^uint32(0)) {
		return fmt.Errorf("%w: more than 4 billion references", analyze.ErrTooLarge)
	}
	for _, off := range b.offsets {
		if err := p.offsets.add(uint32(base) + off); err != nil {
			return err
		}
	}
	if err := p.targets.addAll(b.targets); err != nil {
		return err
	}
	if err := p.strings.addAll(b.strings); err != nil {
		return err
	}
	if err := p.weak.addAll(b.weak); err != nil {
		return err
	}
	if err := p.native.addAll(b.native); err != nil {
		return err
	}
	if err := p.broken.addAll(b.broken); err != nil {
		return err
	}
	p.threads = append(p.threads, b.threads...)
	for _, l := range b.loaders {
		p.h.Classes[l.class].loader = l.loader
	}
	p.dangling += b.dangling
	before := p.n
	p.n += uint32(len(b.offsets))
	if before != 0 && before/(cancelCheckMask+1) == p.n/(cancelCheckMask+1) {
		return nil
	}
	p.ids.at(int(p.n))
	p.cls.at(int(p.n))
	span := max(p.h.prog.size-p.h.prog.dumpStart, 1)
	return p.h.report(stageReferences, float64(b.end-p.h.prog.dumpStart)/float64(span), b.end)
}

// finish checks that every object was read and hands the arrays to the heap.
func (p *refOut) finish() error {
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
	h.threads = p.threads
	h.Dangling = p.dangling
	return nil
}

// readRefs is pass 2: on the calling goroutine when sequential is set or the
// dump has one chunk, else on a goroutine a core.
func (h *Heap) readRefs(cps []checkpoint, maxRefs int, sequential bool) error {
	out := &refOut{h: h}
	if err := out.init(maxRefs); err != nil {
		return err
	}
	workers := min(runtime.GOMAXPROCS(0), len(cps))
	// A batch's memory is charged when it reaches this goroutine, as it grew.
	var charged int64
	defer func() { h.mem.uncharge(charged) }()
	chargeBatch := func(b *refBatch) error {
		c := b.capBytes()
		if c <= b.charged {
			return nil
		}
		if err := h.mem.charge(c-b.charged, "the references being read"); err != nil {
			return err
		}
		charged += c - b.charged
		b.charged = c
		return nil
	}
	if sequential || workers < 2 {
		b := &refBatch{}
		s := newScanner(h.file, h.fileSize)
		s.idSize = h.IDSize
		p := &pass2{h: h, s: s, b: b, lastBroken: noObject, flush: func(b *refBatch) (*refBatch, error) {
			b.end = s.pos()
			if err := chargeBatch(b); err != nil {
				return nil, err
			}
			if err := out.add(b); err != nil {
				return nil, err
			}
			b.reset()
			return b, nil
		}}
		if err := walk(s, h.dataStart, p); err != nil {
			return err
		}
		if _, err := p.flush(p.b); err != nil {
			return err
		}
		return out.finish()
	}
	h.readChunks = len(cps)
	// At most workers+1 chunks are read and not yet appended (tokens); each
	// holds a batch being filled and at most batchesQueued more on its
	// channel, and the free list recycles them.
	const batchesQueued = 2
	results := make([]chan *refBatch, len(cps))
	for i := range results {
		results[i] = make(chan *refBatch, batchesQueued)
	}
	tokens := make(chan struct{}, workers+1)
	for range workers + 1 {
		tokens <- struct{}{}
	}
	freed := make(chan *refBatch, workers)
	quit := make(chan struct{})
	var next atomic.Int64
	var wg sync.WaitGroup
	// The readers are stopped and waited for however this returns: a
	// progress callback may panic, and the arrays they read are unmapped
	// after.
	stop := sync.OnceFunc(func() {
		close(quit)
		wg.Wait()
	})
	defer stop()
	getBatch := func() *refBatch {
		select {
		case b := <-freed:
			b.reset()
			return b
		default:
			return &refBatch{}
		}
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := newScanner(h.file, h.fileSize)
			s.idSize = h.IDSize
			for {
				select {
				case <-tokens:
				case <-quit:
					return
				}
				i := int(next.Add(1) - 1)
				if i >= len(cps) {
					return
				}
				ch := results[i]
				send := func(b *refBatch) bool {
					select {
					case ch <- b:
						return true
					case <-quit:
						return false
					}
				}
				p := &pass2{h: h, s: s, n: cps[i].ord, b: getBatch(), lastBroken: noObject}
				p.flush = func(b *refBatch) (*refBatch, error) {
					b.end = s.pos()
					if err := h.stopped(); err != nil {
						return nil, err
					}
					if !send(b) {
						return nil, errQuit
					}
					return getBatch(), nil
				}
				limit, end := h.fileSize, uint32(len(h.ids))
				if i+1 < len(cps) {
					limit, end = cps[i+1].off, cps[i+1].ord
				}
				// The chunk is read front to back: the kernel reads it
				// ahead whole (the scanner asks for more past 16 MiB).
				readAhead(h.file, cps[i].off, limit-cps[i].off)
				err := walkRange(s, cps[i].off, cps[i].segEnd, limit, p)
				if err == nil && p.n != end {
					err = fmt.Errorf("%w: the dump changed between two readings", analyze.ErrMalformed)
				}
				if errors.Is(err, errQuit) {
					return
				}
				b := p.b
				if b == nil {
					b = getBatch() // the flush that failed gave none back
				}
				b.end, b.last, b.err = limit, true, err
				if !send(b) || err != nil {
					return
				}
			}
		}()
	}
	err := func() error {
		for i := range cps {
			for last := false; !last; {
				var b *refBatch
				select {
				case b = <-results[i]:
				case <-h.done():
					return h.stopped()
				}
				if b.err != nil {
					return b.err
				}
				if err := chargeBatch(b); err != nil {
					return err
				}
				if err := out.add(b); err != nil {
					return err
				}
				last = b.last
				select {
				case freed <- b:
				default:
					h.mem.uncharge(b.charged)
					charged -= b.charged
				}
			}
			tokens <- struct{}{}
		}
		return nil
	}()
	stop()
	if err != nil {
		return err
	}
	return out.finish()
}

// errQuit stops a reader of pass 2 whose results are no longer wanted.
var errQuit = errors.New("hprof: pass 2 stopped")

// done is Options.Context's Done channel (nil, which never fires, without one).
func (h *Heap) done() <-chan struct{} {
	if h.ctx == nil {
		return nil
	}
	return h.ctx.Done()
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
		p.b.dangling++
		// The object whose reference dangles, once: the fields of its edges
		// are matched by identifier (resolve.go), not by position.
		if from := p.n - 1; p.lastBroken != from {
			p.b.broken = append(p.b.broken, from)
			p.lastBroken = from
		}
		return noObject, nil
	}
	p.b.targets = append(p.b.targets, o)
	return o, nil
}

func (p *pass2) start(id uint64) error {
	if int(p.n) >= len(p.h.ids) || p.h.ids[p.n] != id {
		return fmt.Errorf("%w: the dump changed between two readings", analyze.ErrMalformed)
	}
	if p.n&batchMask == 0 || len(p.b.targets) >= maxBatchRefs {
		var err error
		if p.b, err = p.flush(p.b); err != nil {
			return err
		}
	}
	p.b.offsets = append(p.b.offsets, uint32(len(p.b.targets)))
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
		p.b.loaders = append(p.b.loaders, classLoader{class: cn, loader: loader})
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
				p.b.strings = append(p.b.strings, r)
			}
			if c.isThread && p.h.names[c.refNames[i]] == "name" {
				p.b.threads = append(p.b.threads, threadRef{obj: o, name: t})
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
			if len(p.b.targets) >= maxBatchRefs && left > 0 {
				if p.b, err = p.flush(p.b); err != nil {
					return err
				}
			}
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
			p.b.weak = append(p.b.weak, refRecord{ref: o, referent: t, kind: sp.refKind})
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
	p.b.native = append(p.b.native, r)
	return nil
}
