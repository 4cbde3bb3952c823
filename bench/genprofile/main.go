// genprofile writes two real heap profiles of this process, taken by the Go runtime:
// a base and a later target in which a few call paths kept growing (a leak).
// Distinct call paths come from recursion through four functions chosen by the
// digits of a number in base 4, so -depth 8 gives up to 65536 distinct stacks;
// -hops N makes each level of the recursion N frames deeper (through main.hop),
// so stacks are longer and the profile larger (-depth 10 -hops 1: a million
// stacks of 33 frames, about 55 MB each once decompressed).
//
//	go run ./bench/genprofile -depth 8 -out /tmp/prof   # writes base.pb.gz and target.pb.gz
package main

import (
	"flag"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
)

var keep [][]byte

// hops is -hops: the frames of main.hop each level of the recursion passes.
var hops int

//go:noinline
func a0(path, depth, size int) {
	if hops > 0 {
		hop(hops, path, depth, size)
		return
	}
	step(path, depth, size)
}

//go:noinline
func a1(path, depth, size int) {
	if hops > 0 {
		hop(hops, path, depth, size)
		return
	}
	step(path, depth, size)
}

//go:noinline
func a2(path, depth, size int) {
	if hops > 0 {
		hop(hops, path, depth, size)
		return
	}
	step(path, depth, size)
}

//go:noinline
func a3(path, depth, size int) {
	if hops > 0 {
		hop(hops, path, depth, size)
		return
	}
	step(path, depth, size)
}

//go:noinline
func hop(n, path, depth, size int) {
	if n == 1 {
		step(path, depth, size)
		return
	}
	hop(n-1, path, depth, size)
}

func step(path, depth, size int) {
	if depth == 0 {
		keep = append(keep, make([]byte, size))
		return
	}
	next := [...]func(int, int, int){a0, a1, a2, a3}[path%4]
	next(path/4, depth-1, size)
}

func write(name string) {
	runtime.GC()
	f, err := os.Create(name)
	if err != nil {
		log.Fatal(err)
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}

func main() {
	depth := flag.Int("depth", 7, "recursion depth; 4^depth distinct stacks")
	out := flag.String("out", ".", "output directory")
	flag.IntVar(&hops, "hops", 0, "frames of main.hop on each level of the recursion")
	flag.Parse()
	runtime.MemProfileRate = 1
	paths := 1
	for i := 0; i < *depth; i++ {
		paths *= 4
	}
	for p := 0; p < paths; p++ {
		step(p, *depth, 64+p%512)
	}
	write(filepath.Join(*out, "base.pb.gz"))
	// The leak: every 97th path allocates again and keeps it; others churn.
	for p := 0; p < paths; p++ {
		if p%97 == 0 {
			step(p, *depth, 4096)
		} else {
			_ = make([]byte, 128)
		}
	}
	write(filepath.Join(*out, "target.pb.gz"))
}
