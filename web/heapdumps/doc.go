// Package heapdumps is JVM heap dumps (HPROF) as a kind of evidence in the
// web, a kind.Kind the web root registers: one dump, analyzed in the
// background and stored with its index, shows its leak suspects with their
// paths from a GC root, the dominator tree paged from the index
// (/r/{id}/dominators, /r/{id}/paths/{n}), the histogram with retained sizes,
// threads and duplicate strings, the tree grouped by class where one class
// has many objects at a level; the views MAT's users reach for next, each a
// page and its JSON read from the stored index (views.go: native memory, the
// tree by class loader, unreachable objects, duplicate classes, the strong
// path to any object). Two or more dumps compare by class, over
// web/classhist and web/snapshot, in the background too: each dump analyzed in
// turn into its index, the indexes stored with the comparison, and the
// comparison built from the stored indexes. The background queue is
// web/background's; its job calls Kind.AnalyzeStored.
package heapdumps
