// Package javatest runs the tests' small Java programs on the real JDK: it compiles
// one, runs it until it prints "ready", and takes jcmd's class histogram and heap dump
// of its quiet heap.
package javatest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	histogram, err := exec.Command(jcmd, pid, "GC.class_histogram").CombinedOutput()
	if err != nil {
		t.Fatalf("jcmd GC.class_histogram: %v\n%s", err, histogram)
	}
	dump := filepath.Join(dir, program+".hprof")
	dumpArgs := []string{pid, "GC.heap_dump"}
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
