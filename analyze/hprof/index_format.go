package hprof

import (
	"encoding/binary"
	"math"
)

// IndexRoot is the node number of the virtual root above the GC roots in an Index:
// its children are the top-level objects (those the GC roots dominate together).
const IndexRoot uint32 = math.MaxUint32

// The index format (little-endian): a fixed header (indexHeader) with the section
// offsets, then the sections it names.
//
//   - classOffsets: classes+1 uint32 offsets into classNames (the name of class c is
//     classNames[off[c]:off[c+1]]).
//   - classNames: the class names, UTF-8, back to back.
//   - records: objects+1 records of recordSize bytes, one per ordinal and the last
//     for the virtual root: the first of its children in kids (uint32), its
//     immediate dominator (uint32: an ordinal, objects for the virtual root,
//     noObject when unreachable), its class number (uint32, with textFlag when it
//     has a text), its shallow size (uint32, 2³²-1 when in bigShallow), its retained
//     size (uint64) and its identifier (uint32 (id-idBase)>>idShift when idWidth is
//     4, else uint64). Its children end where the next record's begin (kids' end for
//     the root).
//   - kids: the dominator tree's children of every node in ordinal order, each
//     node's largest retained first (uint32 ordinals).
//   - bigShallow: (ordinal uint32, size uint64) of the objects of 4 GiB or more,
//     ascending by ordinal.
//   - textIndex: (ordinal uint32, offset uint32, length uint32) ascending by ordinal,
//     into textBlob: the texts the Heap knows (see Heap.WriteIndex).
//   - textBlob: the texts, UTF-8.
//
// Version 2 adds four sections after those (a version 1 index, written before
// them, has none: OpenIndex reads both):
//
//   - ancestry: one (depth uint32, top uint32) per ordinal: the node's depth in
//     the dominator tree (1 for a top-level object, 0 when unreachable) and the
//     top-level object above it (noObject when unreachable), so that a node's
//     dominator chain is told by its ends without walking it.
//   - paths: one pathEntry per suspect of the report, in its order: where its
//     shortest path from a GC root ends (the accumulation point), its steps,
//     the first of them in pathSteps, and its root's label (a name).
//   - pathSteps: per path, its steps from the accumulation point up to the
//     root: (ordinal uint32, via uint32), the via being the field through which
//     the step above references it: viaElement|i for an array's element i,
//     viaUnknown for none (the root, or a field not read), else a name.
//   - pathNames: the names vias index: (length uint32, UTF-8 bytes) each.
//
// Version 3 adds, after those, the dump's time, its shallow size and its
// identifier size and GC root count in the header, and five sections:
//
//   - classInfo: one classEntry per class: its loader's ordinal (noObject for
//     the bootstrap loader), its class object's ordinal (noObject for the
//     synthetic classes), then, by reachability (strong, only softly or
//     weakly, only from finalizer or cleaner queues, unreachable), the count
//     and shallow size (uint64 each) of its objects, and what its instances
//     retain together (int64, -1 when the histogram was not made).
//   - topGroups: the top-level objects grouped by class, largest retained
//     first: (class uint32, objects uint32, first uint32 into topMembers, 0
//     uint32, shallow uint64, retained uint64).
//   - topMembers: the top-level objects, by group, each group's largest
//     retained first (uint32 ordinals).
//   - objectPaths: one (parent uint32, via uint32, steps uint32, root uint32)
//     per ordinal: the object before it on a shortest path of strong
//     references from a GC root (objects for a GC root, noObject when
//     unreachable), the field through which that one references it (a via, as
//     in pathSteps, names in pathNames), the path's number of objects (1 for a
//     root, 0 unreachable) and the GC root it starts at.
//   - gcRoots: (ordinal uint32, kind uint32, thread uint32) per GC root
//     record, by ordinal: its kind (RootKind) and, for a thread's roots, the
//     thread object's ordinal (noObject when none).
const (
	indexMagic   = "LKUIHIDX"
	indexVersion = 3
	// textFlag marks the class number of a record whose object has a text.
	textFlag = 1 << 31
	// recordFixed is a record's size without its identifier.
	recordFixed = 4 + 4 + 4 + 4 + 8
	// bigEntry and textEntry are the sizes of bigShallow's and textIndex's entries.
	bigEntry  = 4 + 8
	textEntry = 4 + 4 + 4
	// ancestryEntry, pathEntrySize and stepEntry are the sizes of ancestry's,
	// paths' and pathSteps' entries.
	ancestryEntry = 4 + 4
	pathEntrySize = 4 + 4 + 8 + 4
	stepEntry     = 4 + 4
	// classEntry, groupEntry, objectPathEntry and rootEntry are the sizes of
	// classInfo's, topGroups', objectPaths' and gcRoots' entries.
	classEntry      = 4 + 4 + 4*(8+8) + 8
	groupEntry      = 4 + 4 + 4 + 4 + 8 + 8
	objectPathEntry = 4 + 4 + 4 + 4
	rootEntry       = 4 + 4 + 4
)

// section locates one section of an index.
type section struct {
	Offset, Length uint64
}

// indexHeader is the first bytes of an index of version 3.
type indexHeader struct {
	indexHeaderV2
	TimeMillis  int64
	Shallow     uint64
	IDSize      uint32
	Roots       uint32
	ClassInfo   section
	TopGroups   section
	TopMembers  section
	ObjectPaths section
	GCRoots     section
}

// indexHeaderV2 is the first bytes of an index of version 2, and the start of
// those of version 3.
type indexHeaderV2 struct {
	indexHeaderV1
	Ancestry  section
	Paths     section
	PathSteps section
	PathNames section
}

// indexHeaderV1 is the first bytes of an index of version 1, and the start of
// those of version 2.
type indexHeaderV1 struct {
	Magic         [8]byte
	Version       uint32
	IDWidth       uint32 // 4 or 8
	IDShift       uint32
	Classes       uint32
	IDBase        uint64
	Objects       uint64
	Reachable     uint64
	TotalRetained uint64
	ClassOffsets  section
	ClassNames    section
	Records       section
	Kids          section
	BigShallow    section
	TextIndex     section
	TextBlob      section
}

var le = binary.LittleEndian

// indexHeaderSize, indexHeaderV2Size and indexHeaderV1Size are the encoded
// sizes of the headers of versions 3, 2 and 1.
var (
	indexHeaderSize   = binary.Size(indexHeader{})
	indexHeaderV2Size = binary.Size(indexHeaderV2{})
	indexHeaderV1Size = binary.Size(indexHeaderV1{})
)
