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
//
// It owns the run specs, presets and their limits (spec.go; a spec whose
// written bytes or batch memory pass the limits is refused before start,
// budget.go), the child's memory, CPU and disk limits (ChildLimits: prlimit on
// its address space, CPU time and file size, and its run directory watched
// against the disk quota; child_limits.go), the capture schedule (about
// Config.Snapshots captures a run, /debug/pprof/heap with gc=1 unless the run
// models a quiet heap, and /debug/pprof/goroutine), the progress phases that are
// not the workload's unit of work (Progress.Phase), the verdict from the
// workload's counters and memory (verdict.go), the heartbeat that renews the
// leases of the runs its children still run (Manager.Heartbeat), and live
// targets (-target) with their capture series (Manager.StartCapture).
//
// A run's child is the server's own binary (os.Executable) as `leakui work
// <workload> <spec flags> -json -sync -pprof 127.0.0.1:0 -hold … -log FILE`, in its
// own process group with Pdeathsig; gzip recoveries run with GOGC=off and
// GOMEMLIMIT=1GiB, so that the heap stays as quiet as the JVM's was. With -sync the
// child waits for a line on stdin after every ready and progress event, so that a
// snapshot shows exactly its step. Every half lease the manager first renews the
// leases of the runs its children still run, so a silent child keeps its run; the
// runs whose owner stopped renewing them are then marked interrupted by the store.
//
// Its only leakui import is package lab/child, the child's side of the protocol.
package lab
