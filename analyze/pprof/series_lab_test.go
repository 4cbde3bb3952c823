package pprof

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/pprof"
	"testing"
)

// This file holds the real workloads the series tests profile: goroutines parked
// in known functions, and heap objects retained by known allocation sites.

// seriesPool runs a number of goroutines of one function, each parked until it is
// told to stop; resize starts or stops goroutines and waits until they are parked
// or gone, so that a goroutine profile taken afterwards counts them exactly.
type seriesPool struct {
	fn    func(ready chan<- struct{}, stop <-chan struct{})
	stops []chan struct{}
	dones []chan struct{}
}

func (p *seriesPool) resize(n int) {
	for len(p.stops) < n {
		ready, stop, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			p.fn(ready, stop)
		}()
		<-ready
		p.stops, p.dones = append(p.stops, stop), append(p.dones, done)
	}
	for len(p.stops) > n {
		last := len(p.stops) - 1
		close(p.stops[last])
		<-p.dones[last]
		p.stops, p.dones = p.stops[:last], p.dones[:last]
	}
}

// The parked functions. Each is its own site in a goroutine profile.

//go:noinline
func seriesLeakedWorker(ready chan<- struct{}, stop <-chan struct{}) { close(ready); <-stop }

//go:noinline
func seriesReleasedWorker(ready chan<- struct{}, stop <-chan struct{}) { close(ready); <-stop }

//go:noinline
func seriesNoiseWorkerA(ready chan<- struct{}, stop <-chan struct{}) { close(ready); <-stop }

//go:noinline
func seriesNoiseWorkerB(ready chan<- struct{}, stop <-chan struct{}) { close(ready); <-stop }

//go:noinline
func seriesNoiseWorkerC(ready chan<- struct{}, stop <-chan struct{}) { close(ready); <-stop }

//go:noinline
func seriesNoiseWorkerD(ready chan<- struct{}, stop <-chan struct{}) { close(ready); <-stop }

var seriesNoiseWorkers = []func(chan<- struct{}, <-chan struct{}){seriesNoiseWorkerA, seriesNoiseWorkerB, seriesNoiseWorkerC, seriesNoiseWorkerD}

// funcName is the name a profile gives a function: the runtime's own, not one
// typed into the test.
func funcName(fn any) string {
	return runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()
}

// goroutineSnapshot takes a goroutine profile (proto, as /debug/pprof/goroutine
// serves it) of the test process and loads it.
func goroutineSnapshot(tb testing.TB, name string) Snapshot {
	tb.Helper()
	return Snapshot{Name: name, Profile: processProfile(tb, "goroutine")}
}

// processProfile takes the test process's runtime profile of the given kind
// ("goroutine", "heap") in proto and loads it.
func processProfile(tb testing.TB, kind string) *Profile {
	tb.Helper()
	var buf bytes.Buffer
	if err := pprof.Lookup(kind).WriteTo(&buf, 0); err != nil {
		tb.Fatal(err)
	}
	p, err := Open(Reader(&buf), Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// The allocation sites of the heap tests.

// seriesLeakNode is what the leaky site allocates: one small object per call,
// linked to the previous ones so that all stay reachable.
type seriesLeakNode struct {
	//lint:ignore U1000 the payload is never read: its size is what the test allocates
	payload [4000]byte
	next    *seriesLeakNode
}

//go:noinline
func seriesLeakyAlloc(head *seriesLeakNode) *seriesLeakNode { return &seriesLeakNode{next: head} }

// The noise sites allocate in their own bodies: an allocation in a helper, even
// an inlined one, would be attributed to the helper (the leaf frame), as pprof
// attributes it.

//go:noinline
func seriesNoiseAllocA(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = make([]byte, 1024)
	}
	return out
}

//go:noinline
func seriesNoiseAllocB(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = make([]byte, 1024)
	}
	return out
}

//go:noinline
func seriesNoiseAllocC(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = make([]byte, 1024)
	}
	return out
}

//go:noinline
func seriesNoiseAllocD(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = make([]byte, 1024)
	}
	return out
}

var seriesNoiseAllocs = []func(int) [][]byte{seriesNoiseAllocA, seriesNoiseAllocB, seriesNoiseAllocC, seriesNoiseAllocD}

// writeHeapSnapshot writes a heap profile of the test process, as of a garbage
// collection run just before, to dir/heap-NN.pb.gz. It writes to a file rather than
// keeping the bytes so that the test itself retains nothing per snapshot.
func writeHeapSnapshot(t *testing.T, dir string, i int) {
	t.Helper()
	runtime.GC()
	f, err := os.Create(heapSnapshotPath(dir, i))
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func heapSnapshotPath(dir string, i int) string {
	return filepath.Join(dir, fmt.Sprintf("heap-%02d.pb.gz", i))
}

// loadHeapSnapshots loads what writeHeapSnapshot wrote.
func loadHeapSnapshots(t *testing.T, dir string, n int) []Snapshot {
	t.Helper()
	snaps := make([]Snapshot, n)
	for i := range snaps {
		path := heapSnapshotPath(dir, i)
		snaps[i] = Snapshot{Name: filepath.Base(path), Profile: loadFile(t, path)}
	}
	return snaps
}

// withMemProfileRate records every allocation while fn runs, so that one small
// object is visible in a heap profile (by default the runtime samples one
// allocation per 512 kB).
func withMemProfileRate(t *testing.T, fn func()) {
	t.Helper()
	old := runtime.MemProfileRate
	runtime.MemProfileRate = 1
	defer func() { runtime.MemProfileRate = old }()
	fn()
}

func shuffled(rng *rand.Rand, snaps []Snapshot) []Snapshot {
	out := append([]Snapshot(nil), snaps...)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}
