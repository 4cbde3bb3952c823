// Package child is the child-process side of the lab's protocol: what every
// reproduction (`leakui work …`) shares. It serves net/http/pprof and expvar on a
// loopback address, writes one JSON event per line on stdout, reads the process's own
// memory figures, and holds the process alive after the work so a profiler can take
// the final snapshot.
//
// The lab package, the parent side, reads the same events back with [Decode].
// Event shapes are a contract: fields may be added, never renamed. The package
// imports no other leakui package, and never the lab: the lab imports it.
//
// A workload that starts processes of its own (the checkpoint workload's broker)
// writes a line beginning with HelperKilled on its standard error when one of
// them is killed by a signal it did not send: they inherit the child's limits,
// and the lab names the limit.
package child

// HelperKilled begins the line a workload writes on its standard error when a
// process it started was killed by a signal it did not send.
const HelperKilled = "a process the workload started was killed"
