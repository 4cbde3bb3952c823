package hprof

import (
	"fmt"
	"slices"
	"strings"

	"github.com/leakui/leakui/analyze"
)

// The JDK classes whose fields the analysis reads beyond references: the
// java.lang.ref.Reference kinds (their referent), and the objects that own
// memory outside the heap. Their fields are those `javap -p` prints for
// OpenJDK 17.0.15 (java.base), which JDK 8 and 21 share but where noted:
//
//   - java.lang.ref.Reference: referent (the edge the dominator tree leaves
//     out); SoftReference, WeakReference, FinalReference (java.lang.ref.Finalizer,
//     the finalizer queue) and PhantomReference (jdk.internal.ref.Cleaner and
//     the java.lang.ref.Cleaner's PhantomCleanableRef: the cleaner queues) tell
//     the kind;
//   - java.nio.Buffer.capacity (int), java.nio.MappedByteBuffer.fd (a mapped
//     file's descriptor, null for direct memory), java.nio.DirectByteBuffer.cleaner
//     (the Cleaner that frees the memory: null for a slice or duplicate, which
//     owns none);
//   - java.util.zip.Inflater.zsRef and Deflater.zsRef, and the address (long)
//     of the zlib stream they hold: java.util.zip.ZStreamRef in JDK 8,
//     Inflater$InflaterZStreamRef and Deflater$DeflaterZStreamRef since JDK 11;
//     end() sets it to 0, so a stream whose address is not 0 holds zlib's
//     memory;
//   - java.lang.Thread.stackSize (long, the size the program asked for, 0 for
//     the JVM's default), in Thread$FieldHolder since JDK 19 (Thread.holder).
const (
	declReference = iota
	declSoft
	declWeak
	declFinal
	declPhantom
	declBuffer
	declMapped
	declDirect
	declInflater
	declDeflater
	declZStream
	declThread
	declThreadHolder
	declCount
)

var declNames = map[string]int{
	"java.lang.ref.Reference":                   declReference,
	"java.lang.ref.SoftReference":               declSoft,
	"java.lang.ref.WeakReference":               declWeak,
	"java.lang.ref.FinalReference":              declFinal,
	"java.lang.ref.PhantomReference":            declPhantom,
	"java.nio.Buffer":                           declBuffer,
	"java.nio.MappedByteBuffer":                 declMapped,
	"java.nio.DirectByteBuffer":                 declDirect,
	"java.util.zip.Inflater":                    declInflater,
	"java.util.zip.Deflater":                    declDeflater,
	"java.util.zip.ZStreamRef":                  declZStream,
	"java.util.zip.Inflater$InflaterZStreamRef": declZStream,
	"java.util.zip.Deflater$DeflaterZStreamRef": declZStream,
	"java.lang.Thread":                          declThread,
	"java.lang.Thread$FieldHolder":              declThreadHolder,
}

// RefKind is the kind of a java.lang.ref.Reference.
type RefKind uint8

// The kinds of references, weakest last.
const (
	RefNone RefKind = iota
	RefSoft
	RefWeak
	RefFinal
	RefPhantom
)

// nativeKind tells which fields of an instance pass 2 reads.
type nativeKind uint8

const (
	nativeNone nativeKind = iota
	nativeDirect
	nativeInflater
	nativeDeflater
	nativeZStream
	nativeThread
	nativeHolder
)

// special is where the fields the analysis reads are in an instance's data of
// a class, -1 where the class has none.
type special struct {
	refKind    RefKind
	referentAt int32
	kind       nativeKind
	// direct buffers
	capacityAt, fdAt, cleanerAt int32
	// Inflater and Deflater: the zlib stream's holder; the holder: its address
	// and whose stream it is (nativeNone for JDK 8's ZStreamRef, shared by both)
	zsRefAt, addressAt int32
	stream             nativeKind
	// threads: the stack size asked for, and JDK 19's holder of it
	stackSizeAt, holderAt int32
}

// fieldIn is the offset of field name (of type typ) declared by class k in
// the instance data of class c (whose layout is lay[c]), -1 when k declares
// no such field.
func (h *Heap) fieldIn(lay []classLayout, c int, k uint32, name string, typ byte) int32 {
	if k == noClass {
		return -1
	}
	off := lay[c].fieldBytes - lay[k].fieldBytes
	for _, f := range h.Classes[k].fields {
		if h.names[f.name] == name {
			if f.typ != typ {
				return -1
			}
			return int32(off)
		}
		off += int64(typeSize(f.typ, h.IDSize))
	}
	return -1
}

// specialOf works out what pass 2 reads of the instances of class c, nil for
// nothing.
func (h *Heap) specialOf(lay []classLayout, c int) *special {
	d := &lay[c].decl
	sp := &special{referentAt: -1, capacityAt: -1, fdAt: -1, cleanerAt: -1, zsRefAt: -1, addressAt: -1, stackSizeAt: -1, holderAt: -1}
	found := false
	if d[declReference] != noClass {
		switch {
		case d[declSoft] != noClass:
			sp.refKind = RefSoft
		case d[declWeak] != noClass:
			sp.refKind = RefWeak
		case d[declFinal] != noClass:
			sp.refKind = RefFinal
		case d[declPhantom] != noClass:
			sp.refKind = RefPhantom
		}
		if sp.refKind != RefNone {
			sp.referentAt = h.fieldIn(lay, c, d[declReference], "referent", typeObject)
			found = sp.referentAt >= 0
		}
	}
	switch {
	case d[declDirect] != noClass:
		sp.kind = nativeDirect
		sp.capacityAt = h.fieldIn(lay, c, d[declBuffer], "capacity", typeInt)
		sp.fdAt = h.fieldIn(lay, c, d[declMapped], "fd", typeObject)
		sp.cleanerAt = h.fieldIn(lay, c, d[declDirect], "cleaner", typeObject)
	case d[declInflater] != noClass:
		sp.kind = nativeInflater
		sp.zsRefAt = h.fieldIn(lay, c, d[declInflater], "zsRef", typeObject)
	case d[declDeflater] != noClass:
		sp.kind = nativeDeflater
		sp.zsRefAt = h.fieldIn(lay, c, d[declDeflater], "zsRef", typeObject)
	case d[declZStream] != noClass:
		sp.kind = nativeZStream
		sp.addressAt = h.fieldIn(lay, c, d[declZStream], "address", typeLong)
		switch h.Classes[d[declZStream]].Name {
		case "java.util.zip.Inflater$InflaterZStreamRef":
			sp.stream = nativeInflater
		case "java.util.zip.Deflater$DeflaterZStreamRef":
			sp.stream = nativeDeflater
		}
	case d[declThread] != noClass:
		sp.kind = nativeThread
		sp.stackSizeAt = h.fieldIn(lay, c, d[declThread], "stackSize", typeLong)
		sp.holderAt = h.fieldIn(lay, c, d[declThread], "holder", typeObject)
	case d[declThreadHolder] != noClass:
		sp.kind = nativeHolder
		sp.stackSizeAt = h.fieldIn(lay, c, d[declThreadHolder], "stackSize", typeLong)
	}
	if sp.kind != nativeNone {
		found = true
	}
	if !found {
		return nil
	}
	return sp
}

// refRecord is a java.lang.ref.Reference read by pass 2, with its referent.
type refRecord struct {
	ref, referent uint32
	kind          RefKind
}

// nativeRecord is an instance pass 2 read the native fields of: a direct
// buffer (value its capacity, flags whether it owns its memory and whether
// it maps a file), an Inflater or a Deflater (link its zlib stream's holder),
// a stream holder (value its address), a thread (value its stack size, link
// its field holder) or a thread's field holder (value its stack size).
type nativeRecord struct {
	value int64
	obj   uint32
	link  uint32
	kind  nativeKind
	flags uint8
}

const (
	nativeOwner  = 1 << 0 // a direct buffer with a cleaner: it owns its memory
	nativeMapped = 1 << 1 // a direct buffer with a file descriptor: a mapped file
)

// A stream holder's record carries in its flags whose stream it is
// (nativeInflater or nativeDeflater, 0 when its class does not tell).

// NativeMemory is what a dump says of the memory its objects hold outside the
// Java heap: the direct and mapped buffers with their capacities (read from
// their fields), the zlib streams of the Inflaters and Deflaters not ended
// (costed at the JVM-measured bytes per stream), and the threads' stacks.
// Each count is split by how the objects are reached: a dump taken with
// `jcmd GC.heap_dump -all` keeps the unreachable objects, whose native memory
// stays held until a GC finds them and their cleaner runs.
type NativeMemory struct {
	// DirectBuffers are the java.nio.DirectByteBuffers that own direct
	// memory (a cleaner frees it), Bytes their capacities; MappedBuffers
	// those that map a file; BufferViews the slices and duplicates, which own
	// none.
	DirectBuffers NativeHolders `json:"direct_buffers"`
	MappedBuffers NativeHolders `json:"mapped_buffers"`
	BufferViews   int64         `json:"buffer_views"`
	// Inflaters and Deflaters are those whose zlib stream is not ended (its
	// address is not 0), costed at PerObject bytes each; Ended counts the
	// others.
	Inflaters      NativeHolders `json:"inflaters"`
	InflatersEnded int64         `json:"inflaters_ended"`
	Deflaters      NativeHolders `json:"deflaters"`
	DeflatersEnded int64         `json:"deflaters_ended"`
	// Threads are the live threads (each a GC root) and their stacks.
	Threads ThreadStacks `json:"threads"`
	// Bytes is the sum of the above: what these objects hold outside the heap
	// (reserved, for the thread stacks).
	Bytes int64 `json:"bytes"`
	// Suspects are the holders that hold enough to be a leak suspect, each
	// with its sentence, largest first.
	Suspects []NativeSuspect `json:"suspects,omitempty"`
}

// NativeHolders are the objects of one kind that hold native memory.
type NativeHolders struct {
	Class string `json:"class"`
	Count int64  `json:"count"`
	Bytes int64  `json:"bytes"`
	// PerObject is what each one is costed at, 0 when Bytes is read from the
	// objects (a buffer's capacity).
	PerObject int64 `json:"per_object,omitempty"`
	// Reach splits them by how they are reached: strongly, only softly or
	// weakly, only from finalizer or cleaner queues, not at all.
	Reach NativeReach `json:"reach"`
}

// NativeReach splits holders by how they are reached.
type NativeReach struct {
	Strong         NativeCount `json:"strong"`
	Weak           NativeCount `json:"weak"`
	PendingCleanup NativeCount `json:"pending_cleanup"`
	Unreachable    NativeCount `json:"unreachable"`
}

// of is the count of reachability r.
func (n *NativeReach) of(r Reachability) *NativeCount {
	switch r {
	case Strong:
		return &n.Strong
	case Weak:
		return &n.Weak
	case PendingCleanup:
		return &n.PendingCleanup
	}
	return &n.Unreachable
}

// NativeCount is a count of objects and the native bytes they hold.
type NativeCount struct {
	Count int64 `json:"count"`
	Bytes int64 `json:"bytes"`
}

// ThreadStacks are the live threads and the stack each reserves: the size
// the program asked for where the dump states it (java.lang.Thread.stackSize),
// the JVM's default (analyze.ThreadStackBytes) for the others, which the dump
// does not state (-Xss is not in it).
type ThreadStacks struct {
	Threads      int64 `json:"threads"`
	Stated       int64 `json:"stated"`
	StatedBytes  int64 `json:"stated_bytes"`
	DefaultBytes int64 `json:"default_bytes"`
	Bytes        int64 `json:"bytes"`
}

// NativeSuspect is a kind of native memory holder that holds at least the
// suspect share of the reachable heap, and 64 MiB.
type NativeSuspect struct {
	Class string `json:"class"`
	Count int64  `json:"count"`
	Bytes int64  `json:"bytes"`
	// Reachability is how most of them are reached.
	Reachability string `json:"reachability"`
	// Sentence says it in one line: "19,920 unclosed `java.util.zip.Inflater`s
	// ≈ 236.5 MB of native memory at 12.2 kB each, reachable only from
	// finalizer/cleaner queues (KAFKA-3933-shaped)".
	Sentence string `json:"sentence"`
}

// nativeSuspectMin is the least a kind of holder must hold to be a suspect.
const nativeSuspectMin = 64 << 20

// nativeMemory works out the native memory section from what pass 2 read
// and the reachability of the holders.
func (h *Heap) nativeMemory(share float64) *NativeMemory {
	nm := &NativeMemory{
		DirectBuffers: NativeHolders{Class: "java.nio.DirectByteBuffer"},
		MappedBuffers: NativeHolders{Class: "java.nio.MappedByteBuffer"},
		Inflaters:     NativeHolders{Class: "java.util.zip.Inflater", PerObject: analyze.InflaterNativeBytes},
		Deflaters:     NativeHolders{Class: "java.util.zip.Deflater", PerObject: analyze.DeflaterZlibBytes},
	}
	byObj := func(o uint32) (nativeRecord, bool) {
		i, ok := slices.BinarySearchFunc(h.native, o, func(r nativeRecord, o uint32) int { return cmpUint32(r.obj, o) })
		if !ok {
			return nativeRecord{}, false
		}
		return h.native[i], true
	}
	add := func(n *NativeHolders, reach Reachability, bytes int64) {
		n.Count++
		n.Bytes += bytes
		c := n.Reach.of(reach)
		c.Count++
		c.Bytes += bytes
	}
	alive := map[uint32]bool{}
	for _, r := range h.Roots {
		if r.Kind == RootThreadObject {
			alive[r.Ordinal] = true
		}
	}
	// The owner of each zlib stream: the Inflater or Deflater whose zsRef it is.
	owner := map[uint32]nativeRecord{}
	for _, r := range h.native {
		if (r.kind == nativeInflater || r.kind == nativeDeflater) && r.link != noObject {
			owner[r.link] = r
		}
	}
	for _, r := range h.native {
		switch r.kind {
		case nativeDirect:
			switch {
			case r.flags&nativeOwner == 0:
				nm.BufferViews++
			case r.flags&nativeMapped != 0:
				add(&nm.MappedBuffers, h.Reach(r.obj), max(r.value, 0))
			default:
				add(&nm.DirectBuffers, h.Reach(r.obj), max(r.value, 0))
			}
		case nativeInflater, nativeDeflater:
			if z, ok := byObj(r.link); !ok || z.kind != nativeZStream || z.value == 0 {
				if r.kind == nativeInflater {
					nm.InflatersEnded++
				} else {
					nm.DeflatersEnded++
				}
			}
		case nativeZStream:
			// A stream not ended holds zlib's memory: its owner's, reached as
			// its owner is; a stream whose owner is gone waits for its
			// cleaner (the owner was collected, the Cleaner's action holds
			// the stream).
			if r.value == 0 {
				continue
			}
			kind, reach := nativeKind(r.flags), PendingCleanup
			if o, ok := owner[r.obj]; ok {
				kind, reach = o.kind, h.Reach(o.obj)
			}
			switch kind {
			case nativeInflater:
				add(&nm.Inflaters, reach, nm.Inflaters.PerObject)
			case nativeDeflater:
				add(&nm.Deflaters, reach, nm.Deflaters.PerObject)
			}
		case nativeThread:
			if !alive[r.obj] {
				continue
			}
			t := &nm.Threads
			t.Threads++
			size := r.value
			if hr, ok := byObj(r.link); ok && hr.kind == nativeHolder {
				size = hr.value
			}
			if size > 0 {
				t.Stated++
				t.StatedBytes += size
			} else {
				t.DefaultBytes += analyze.ThreadStackBytes
			}
		}
	}
	t := &nm.Threads
	t.Bytes = t.StatedBytes + t.DefaultBytes
	nm.Bytes = nm.DirectBuffers.Bytes + nm.MappedBuffers.Bytes + nm.Inflaters.Bytes + nm.Deflaters.Bytes + t.Bytes
	threshold := max(int64(nativeSuspectMin), int64(share*float64(h.TotalRetained())))
	for _, n := range []*NativeHolders{&nm.Inflaters, &nm.Deflaters, &nm.DirectBuffers, &nm.MappedBuffers} {
		if n.Bytes >= threshold {
			nm.Suspects = append(nm.Suspects, nativeSuspect(n))
		}
	}
	slices.SortStableFunc(nm.Suspects, func(a, b NativeSuspect) int { return cmpDesc(a.Bytes, b.Bytes, 0, 0) })
	return nm
}

// nativeSuspect says what holders of one kind hold, and how they are reached.
func nativeSuspect(n *NativeHolders) NativeSuspect {
	s := NativeSuspect{Class: n.Class, Count: n.Count, Bytes: n.Bytes}
	most := Strong
	for r := Strong; r <= Unreachable; r++ {
		if n.Reach.of(r).Count > n.Reach.of(most).Count {
			most = r
		}
	}
	s.Reachability = most.String()
	what := "`" + n.Class + "`s"
	switch n.Class {
	case "java.util.zip.Inflater", "java.util.zip.Deflater":
		what = "unclosed " + what
	}
	each := ""
	if n.PerObject > 0 {
		each = " at " + analyze.FormatBytes(n.PerObject) + " each"
	}
	how := most.String()
	if n.Reach.of(most).Count != n.Count {
		var parts []string
		for r := Strong; r <= Unreachable; r++ {
			if c := n.Reach.of(r).Count; c > 0 {
				parts = append(parts, analyze.FormatCount(c)+" "+r.String())
			}
		}
		how = strings.Join(parts, ", ")
	}
	s.Sentence = fmt.Sprintf("%s %s ≈ %s of native memory%s, %s", analyze.FormatCount(n.Count), what, analyze.FormatBytes(n.Bytes), each, how)
	if n.Class == "java.util.zip.Inflater" && 2*n.Reach.Strong.Count < n.Count {
		s.Sentence += " (KAFKA-3933-shaped)"
	}
	s.Sentence += "."
	return s
}
