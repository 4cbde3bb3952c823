// Command leaky is a test helper, not part of leakui: a program to build with
// GOEXPERIMENT=goroutineleakprofile that strands -leak goroutines on channels nothing
// can reach (the Go runtime can prove them leaked) and parks -blocked goroutines on a
// channel a package variable still holds (blocked, but not leaked). It serves
// net/http/pprof on 127.0.0.1:0, prints the address as one line on stdout, and
// runs until stdin closes.
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"sync"
)

// hold is the channel the blocked goroutines wait on: reachable from a global,
// so the garbage collector cannot prove them leaked.
var hold = make(chan struct{})

func main() {
	leak := flag.Int("leak", 5, "goroutines to strand on unreachable channels")
	blocked := flag.Int("blocked", 3, "goroutines to block on a reachable channel")
	flag.Parse()
	var started sync.WaitGroup
	for range *leak {
		started.Add(1)
		strand(&started)
	}
	for range *blocked {
		started.Add(1)
		go park(&started)
	}
	started.Wait()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "leaky:", err)
		os.Exit(1)
	}
	go http.Serve(ln, nil)
	fmt.Println(ln.Addr())
	io.Copy(io.Discard, os.Stdin)
	close(hold)
}

// strand starts a goroutine that waits on a channel only it knows: once strand
// returns, nothing can ever send on it.
func strand(started *sync.WaitGroup) {
	ch := make(chan int)
	go func() {
		started.Done()
		<-ch
	}()
}

// park waits on hold, which main closes at the end.
func park(started *sync.WaitGroup) {
	started.Done()
	<-hold
}
