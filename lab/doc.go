// Package lab runs leak reproductions as child processes and watches them the way
// an SRE watches production: it starts `leakui work <workload> -json -pprof …` (the
// running binary) in its own process group, reads its event lines, captures heap and
// goroutine profiles from its pprof endpoint on a schedule, and decides a verdict
// when it ends.
//
// A leaky reproduction must not leak inside the server that serves everyone: all it
// leaks dies with the child. Cancelling, a deadline or the server's shutdown kill the
// child's whole process group, and the child is also killed by the kernel when the
// server dies (Pdeathsig), so no orphan survives.
//
// The lab records through the Recorder interface (the web package adapts the store
// to it); it does not import the store or the web packages.
package lab
