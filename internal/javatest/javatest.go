// Package javatest runs the tests' small Java programs on the real JDK: it compiles
// one, runs it until it prints "ready", and takes jcmd's class histogram and heap dump
// of its quiet heap (Run), or steps it through its phases while the test captures
// it (Start, Process.Next).
package javatest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/testtool"
)

// Heap is one heap of a real JVM: the class histogram jcmd printed and the heap
// dump jcmd wrote, taken one after the other while the program waited.
type Heap struct {
	// Histogram is the output of `jcmd PID GC.class_histogram`.
	Histogram []byte
	// Dump is the path of the heap dump, in a temporary directory of the test.
	Dump string
}

// Run compiles the Java source file src (PROGRAM.java, whose class PROGRAM has a
// main) into a temporary directory, runs it with jvmArgs and args until it prints
// "ready", takes `jcmd PID GC.class_histogram` and `jcmd PID GC.heap_dump`
// (gzip-compressed with gz) of its quiet heap, and kills it when the test ends. A
// missing JDK skips the test, or fails it under CI=true.
func Run(t testing.TB, src string, gz bool, jvmArgs []string, args ...string) Heap {
	t.Helper()
	return run(t, src, gz, false, jvmArgs, args)
}

// RunAll is Run with `-all` given to both jcmd commands: no full GC runs
// before them, so the histogram and the dump keep the unreachable objects
// (garbage not collected yet, and objects whose cleaner has not run).
func RunAll(t testing.TB, src string, gz bool, jvmArgs []string, args ...string) Heap {
	t.Helper()
	return run(t, src, gz, true, jvmArgs, args)
}

func run(t testing.TB, src string, gz, all bool, jvmArgs, args []string) Heap {
	t.Helper()
	javac := testtool.Require(t, "jdk", "javac")
	java := testtool.Require(t, "jdk", "java")
	jcmd := testtool.Require(t, "jdk", "jcmd")
	dir := t.TempDir()
	program := strings.TrimSuffix(filepath.Base(src), ".java")
	if out, err := exec.Command(javac, "-d", dir, src).CombinedOutput(); err != nil {
		t.Fatalf("javac %s: %v\n%s", program, err, out)
	}
	cmdArgs := append(append([]string{}, jvmArgs...), "-cp", dir, program)
	cmd := exec.Command(java, append(cmdArgs, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		<-done
	})
	ready := make(chan bool, 1)
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "ready" {
				ready <- true
			}
		}
		ready <- false
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatalf("%s ended before it was ready: %s", program, stderr.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s was not ready after 2 minutes", program)
	}
	pid := fmt.Sprint(cmd.Process.Pid)
	histogramArgs := []string{pid, "GC.class_histogram"}
	dumpArgs := []string{pid, "GC.heap_dump"}
	if all {
		histogramArgs = append(histogramArgs, "-all")
		dumpArgs = append(dumpArgs, "-all")
	}
	histogram, err := exec.Command(jcmd, histogramArgs...).CombinedOutput()
	if err != nil {
		t.Fatalf("jcmd GC.class_histogram: %v\n%s", err, histogram)
	}
	dump := filepath.Join(dir, program+".hprof")
	if gz {
		dump += ".gz"
		dumpArgs = append(dumpArgs, "-gz=1")
	}
	if out, err := exec.Command(jcmd, append(dumpArgs, dump)...).CombinedOutput(); err != nil || !strings.Contains(string(out), "Heap dump file created") {
		t.Fatalf("jcmd GC.heap_dump: %v\n%s", err, out)
	}
	if _, err := os.Stat(dump); err != nil {
		t.Fatal(err)
	}
	return Heap{Histogram: histogram, Dump: dump}
}

// Process is a test's Java program running on the real JDK, stepped through its
// phases: it prints "ready" at the end of each phase and waits for a line on
// its standard input before the next.
type Process struct {
	// PID is the JVM's process id.
	PID   int
	cmd   *exec.Cmd
	stdin interface{ Write([]byte) (int, error) }
	ready chan bool
	name  string
	err   *lockedBuffer
}

// lockedBuffer collects a program's stderr while it runs.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Start compiles the Java source file src (PROGRAM.java) into a temporary
// directory, runs it with jvmArgs and args, and waits until it prints "ready"
// the first time. The program is killed when the test ends. A missing JDK
// skips the test, or fails it under CI=true.
func Start(t testing.TB, src string, jvmArgs []string, args ...string) *Process {
	t.Helper()
	javac := testtool.Require(t, "jdk", "javac")
	java := testtool.Require(t, "jdk", "java")
	testtool.Require(t, "jdk", "jcmd")
	dir := t.TempDir()
	program := strings.TrimSuffix(filepath.Base(src), ".java")
	if out, err := exec.Command(javac, "-J-Xmx256m", "-J-XX:+UseSerialGC", "-d", dir, src).CombinedOutput(); err != nil {
		t.Fatalf("javac %s: %v\n%s", program, err, out)
	}
	cmdArgs := append(append(append([]string{}, jvmArgs...), "-cp", dir, program), args...)
	cmd := exec.Command(java, cmdArgs...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &Process{cmd: cmd, stdin: stdin, ready: make(chan bool, 1), name: program, err: &lockedBuffer{}}
	cmd.Stderr = p.err
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.PID = cmd.Process.Pid
	done := make(chan struct{})
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
		<-done
	})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "ready" {
				p.ready <- true
			}
		}
		close(p.ready)
	}()
	p.wait(t)
	return p
}

// Next lets the program run its next phase and waits until it is ready again.
func (p *Process) Next(t testing.TB) {
	t.Helper()
	if _, err := p.stdin.Write([]byte("next\n")); err != nil {
		t.Fatalf("%s: %v", p.name, err)
	}
	p.wait(t)
}

func (p *Process) wait(t testing.TB) {
	t.Helper()
	select {
	case ok := <-p.ready:
		if !ok {
			t.Fatalf("%s ended before it was ready: %s", p.name, p.err.String())
		}
	case <-time.After(3 * time.Minute):
		t.Fatalf("%s was not ready after 3 minutes", p.name)
	}
}
