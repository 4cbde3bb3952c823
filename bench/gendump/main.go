// gendump starts -n goroutines blocked on -stacks distinct call paths (channel receive,
// select, mutex, sleep, condition wait) and writes the runtime's own goroutine dump
// in the chosen format: -debug 2 (like a SIGQUIT/panic dump), 1 (grouped text) or 0 (pprof proto).
//
//	go run ./bench/gendump -n 50000 -depth 4 -debug 2 > dump.txt
package main

import (
	"flag"
	"log"
	"os"
	"runtime/pprof"
	"sync"
	"time"
)

var (
	block = make(chan struct{})
	mu    sync.Mutex
	cond  = sync.NewCond(&sync.Mutex{})
	ready sync.WaitGroup
)

//go:noinline
func b0(path, depth int) { step(path, depth) }

//go:noinline
func b1(path, depth int) { step(path, depth) }

//go:noinline
func b2(path, depth int) { step(path, depth) }

//go:noinline
func b3(path, depth int) { step(path, depth) }

func step(path, depth int) {
	if depth > 0 {
		[...]func(int, int){b0, b1, b2, b3}[path%4](path/4, depth-1)
		return
	}
	ready.Done()
	switch path % 5 {
	case 0:
		<-block
	case 1:
		select {
		case <-block:
		case <-time.After(time.Hour):
		}
	case 2:
		mu.Lock()
		mu.Unlock()
	case 3:
		time.Sleep(time.Hour)
	default:
		cond.L.Lock()
		cond.Wait()
		cond.L.Unlock()
	}
}

func main() {
	n := flag.Int("n", 10000, "goroutines")
	depth := flag.Int("depth", 4, "recursion depth; up to 4^depth distinct paths")
	debug := flag.Int("debug", 2, "goroutine profile debug level: 0, 1 or 2")
	flag.Parse()
	paths := 1
	for i := 0; i < *depth; i++ {
		paths *= 4
	}
	mu.Lock() // goroutines on the mutex path stay blocked
	ready.Add(*n)
	for i := 0; i < *n; i++ {
		go step(i%paths*5+i%5, *depth)
	}
	ready.Wait()
	time.Sleep(200 * time.Millisecond)
	if err := pprof.Lookup("goroutine").WriteTo(os.Stdout, *debug); err != nil {
		log.Fatal(err)
	}
}
