// Command watchers is a test helper, not part of leakui: a program that leaks as a
// service leaks a watcher per ledger replica it opens and never closes. It serves
// net/http/pprof on 127.0.0.1:0 and prints the address as one line on stdout. Each
// line "step" on its stdin starts one more main.ledgerReplicaWatcher goroutine,
// which waits forever on a channel only it holds, and resizes two pools that come
// and go as a service's do, main.requestWorker (100 give or take 3) and
// main.pollLoop (6 or 7), to the next counts of a fixed pseudo-random sequence;
// once every goroutine is started it prints "ok". It ends when stdin closes.
package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
)

// pool runs a number of goroutines of one function, each until told to stop.
type pool struct {
	fn    func(ready chan<- struct{}, stop <-chan struct{})
	stops []chan struct{}
	dones []chan struct{}
}

// resize starts or stops goroutines until n run, and waits until each new one has
// started and each stopped one has ended, so that a goroutine profile taken next
// counts n.
func (p *pool) resize(n int) {
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

//go:noinline
func ledgerReplicaWatcher(ready chan<- struct{}, _ <-chan struct{}) {
	updates := make(chan int) // nobody else holds it: the watcher never returns
	close(ready)
	<-updates
}

//go:noinline
func requestWorker(ready chan<- struct{}, stop <-chan struct{}) { close(ready); <-stop }

//go:noinline
func pollLoop(ready chan<- struct{}, stop <-chan struct{}) { close(ready); <-stop }

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "watchers:", err)
		os.Exit(1)
	}
	go http.Serve(ln, nil)
	fmt.Println(ln.Addr())
	rng := rand.New(rand.NewPCG(2785, 3933))
	watchers := &pool{fn: ledgerReplicaWatcher}
	workers := &pool{fn: requestWorker}
	pollers := &pool{fn: pollLoop}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if in.Text() != "step" {
			continue
		}
		watchers.resize(len(watchers.stops) + 1)
		workers.resize(97 + rng.IntN(7))
		pollers.resize(6 + rng.IntN(2))
		fmt.Println("ok")
	}
}
