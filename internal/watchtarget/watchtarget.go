// Package watchtarget is a Go program for the watches' tests: a real process
// serving net/http/pprof on a loopback port that, in its "leaky" variant,
// strands a goroutine holding 64 KiB every 200 ms, and in its "steady"
// variant starts the same goroutine and lets it end, dropping its 64 KiB. A
// test binary runs Main from its TestMain when Env is set (to the variant)
// and starts itself again as the target with Start.
package watchtarget

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Env names the variant a test binary started as a target runs.
const Env = "LEAKUI_WATCH_TARGET"

// The target's pace and what each step holds.
const (
	Step  = 200 * time.Millisecond
	Bytes = 64 << 10
)

var (
	mu   sync.Mutex
	held [][]byte
)

// hold is the goroutine each step starts: it allocates Bytes and waits for
// stop. Its name is the suspect a watch of the leaky variant finds, in the
// heap profile (where the bytes are allocated) and the goroutine profile
// (where the goroutine waits).
//
//go:noinline
func hold(size int, stop <-chan struct{}) {
	b := make([]byte, size)
	mu.Lock()
	held = append(held, b)
	mu.Unlock()
	<-stop
	mu.Lock()
	held = held[:len(held)-1]
	mu.Unlock()
}

// Main runs the target: it prints "listening http://ADDR" and runs until its
// standard input closes, then returns its exit status.
func Main(variant string) int {
	runtime.MemProfileRate = 4096 // the 64 KiB steps measured closely
	if variant != "leaky" && variant != "steady" {
		fmt.Fprintf(os.Stderr, "watchtarget: unknown variant %q\n", variant)
		return 2
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	fmt.Printf("listening http://%s\n", ln.Addr())
	done := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(done) }()
	never := make(chan struct{})
	t := time.NewTicker(Step)
	defer t.Stop()
	for {
		select {
		case <-done:
			srv.Close()
			return 0
		case <-t.C:
		}
		if variant == "leaky" {
			go hold(Bytes, never)
			continue
		}
		stop := make(chan struct{})
		go hold(Bytes, stop)
		time.Sleep(10 * time.Millisecond)
		close(stop)
	}
}

// Target is a running target process.
type Target struct {
	URL   string
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

// Start starts the test binary again as a target of variant, and stops it
// when the test ends.
func Start(t testing.TB, variant string) *Target {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), Env+"="+variant)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tg := &Target{cmd: cmd, stdin: stdin}
	t.Cleanup(tg.Stop)
	line, err := bufio.NewReader(stdout).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if err != nil || !ok {
		t.Fatalf("the %s target said %q (%v)", variant, line, err)
	}
	tg.URL = url
	return tg
}

// Stop ends the target (closing its input, killing it after 10 s) and waits
// for it.
func (tg *Target) Stop() {
	if tg.cmd.ProcessState != nil {
		return
	}
	tg.stdin.Close()
	done := make(chan struct{})
	go func() { tg.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		tg.cmd.Process.Kill()
		<-done
	}
}
