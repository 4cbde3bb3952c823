// Package hprof reads JVM heap dumps in the HPROF binary format (JAVA PROFILE 1.0.1
// and 1.0.2, as HotSpot's jcmd GC.heap_dump, jmap -dump and
// -XX:+HeapDumpOnOutOfMemoryError write them) and answers what Eclipse MAT answers
// first: the class histogram with retained sizes, the dominator tree, the leak
// suspects with their accumulation point and shortest path to a GC root, the top
// consumers by package, duplicate strings and the threads.
//
// The dump is read in three streaming passes over a file (a gzip-compressed dump is
// first inflated to a temporary file). The first notes a checkpoint every 262,144
// objects or 16 MiB of the dump (the offset of an object's record and the end of
// its segment), from which the second, which looks up the identifier of every
// reference, is read in chunks by a goroutine a core; the calling goroutine
// appends each chunk's references in the dump's order, so the arrays are those
// of one reader. The third (NewReport), which names the field of every
// shortest path's step and the texts a report shows, reads the same chunks the
// same way and merges each chunk's table of field names in the dump's order,
// so the numbers in the index are those of one reader. Memory is bounded by the number of objects,
// not by the size of the dump: an object is an ordinal (its position in the dump), a
// sorted identifier table maps identifiers to ordinals, the class and shallow size of
// each object are compact arrays, and the outbound references are one CSR array.
// The dominator tree is computed with the semi-NCA algorithm (iteratively) over the
// graph whose virtual root points at every GC root; the referent field of
// java.lang.ref.Reference is not an edge, so weakly, softly and phantom reachable
// objects are outside the tree and retain nothing. The edges are the reference
// fields of instances, the elements of object arrays, and a class's superclass,
// class loader, static fields and constant pool; unlike Eclipse MAT, an instance
// has no edge to its class (class objects are reached through their loaders).
//
// Beyond Eclipse MAT's first answers, it reads what the objects hold outside the
// Java heap (NativeMemory: direct and mapped buffers by their capacity fields,
// the zlib streams of Inflaters and Deflaters not ended, costed at the
// JVM-measured bytes per stream, the threads' stacks), splits every object by
// how it is reached (Reachability: strongly, only through soft or weak
// references, only from finalizer or cleaner queues, not at all — a dump taken
// with `jcmd GC.heap_dump -all` keeps the last three), and writes an index
// (WriteIndex, OpenIndex) from which the views MAT's users reach for next are
// paged without the dump: the dominator tree grouped by class and by class
// loader, strong-only paths from the GC roots, the objects not strongly
// reachable by class, duplicate classes, and a comparison of two dumps by class
// (Compare).
//
// # Memory
//
// Every per-object array lives outside the Go heap (region.go); a dump of
// SpillFrom bytes or more keeps them in unlinked temporary files mapped into
// memory, so that what a stage does not touch costs disk, not resident memory.
// For n objects, m references, s strings and a reachable objects, each
// structure costs:
//
//   - pass 1: identifiers 8 B, classes 4 B and shallow sizes 4 B per object
//     (kept to the end), the content hash of each byte[] and char[] 12 B; the
//     sorted identifier table 12 B per object while the passes run, and its
//     bucket index 4 B per 8 objects (at most 128 MiB);
//   - pass 2: the references as one CSR array, 4 B per object (offsets) and
//     4 B per reference (targets); 12 B per String; 12 B per
//     java.lang.ref.Reference with a referent; 24 B per object holding native
//     memory; 4 B per object with a dangling reference; the checkpoints 24 B
//     per chunk (kept for the third pass); the batches the readers hand over
//     (charged as they grow), at most about 2.5 MiB each and 3 per chunk in
//     flight (workers+1 chunks), so at most about 25 MiB on two cores
//     whatever the dump's size;
//   - dominators (semi-NCA): depth-first numbering, order and tree 12 B per
//     object, its stack 8 B per level, the semidominators, labels and forest
//     12 B per reachable object (scratch), the referrers 12 B per reference in
//     partitions on disk, one worked through while the one before it is read
//     and sorted on a second core (two in memory, each of about 2^20 numbers),
//     the immediate dominators 4 B per object (kept);
//   - retained sizes 8 B per object; the dominator tree as CSR 4 B per object
//     and 4 B per reachable object; depth and top-level ancestor 8 B per object;
//   - shortest paths from the GC roots: parent, length and root 12 B per
//     object, the breadth-first queue 4 B per object (written and read front
//     to back); reachability 1 B per object; the field of each path's step 4 B
//     per object (NewReport);
//   - duplicate strings: a hash 8 B per String, two bitmaps of 2 bits per
//     String, then 24 B per candidate string.
//
// Resident memory is what the running stage holds at once, not the sum: a
// file region is charged (Options.Budget) and resident while the stage holds
// it, and a window of a few MiB while it is read or written front to back. An
// array made to be written at random is plain memory until it is released,
// then written to its file in one go: in the file from the start, the kernel
// would write its pages back while the stage runs and fault each one in again
// at its next write. The breadth-first search of the shortest paths runs on a
// second core beside the dominators' depth-first numbering and referrers
// (which read the same references), and is joined before the semidominators
// take their memory, so the two add only the search's parent array. On
// a 1.1 GB dump of 15 million objects the peak resident set is about 355 MiB,
// 0.33× the dump; on 10 GB dumps of 150 million objects it is 3.1–3.3 GiB
// (22–23 B an object), 0.32–0.35× (bench/RESULTS.md).
//
// The record layout follows HotSpot's writer, openjdk/jdk
// src/hotspot/share/services/heapDumper.cpp (the format description at the top of
// that file).
package hprof
