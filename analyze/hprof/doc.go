// Package hprof reads JVM heap dumps in the HPROF binary format (JAVA PROFILE 1.0.1
// and 1.0.2, as HotSpot's jcmd GC.heap_dump, jmap -dump and
// -XX:+HeapDumpOnOutOfMemoryError write them) and answers what Eclipse MAT answers
// first: the class histogram with retained sizes, the dominator tree, the leak
// suspects with their accumulation point and shortest path to a GC root, the top
// consumers by package, duplicate strings and the threads.
//
// The dump is read in three streaming passes over a file (a gzip-compressed dump is
// first inflated to a temporary file), so memory is bounded by the number of objects,
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
// The record layout follows HotSpot's writer, openjdk/jdk
// src/hotspot/share/services/heapDumper.cpp (the format description at the top of
// that file).
package hprof
