package hprof

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

// javaHeap is one heap of a real JVM: the class histogram jcmd printed and the heap
// dump jcmd wrote, taken one after the other while the program waited.
type javaHeap struct {
	histogram []byte
	dump      string
}

// runJava compiles testdata/PROGRAM.java into a temporary directory, runs it with
// args until it prints "ready", takes `jcmd PID GC.class_histogram` and `jcmd PID
// GC.heap_dump` (gzip-compressed with gz) of its quiet heap, and kills it.
func runJava(t testing.TB, program string, gz bool, jvmArgs []string, args ...string) javaHeap {
	t.Helper()
	javac := testtool.Require(t, "jdk", "javac")
	java := testtool.Require(t, "jdk", "java")
	jcmd := testtool.Require(t, "jdk", "jcmd")
	dir := t.TempDir()
	src, err := filepath.Abs(filepath.Join("testdata", program+".java"))
	if err != nil {
		t.Fatal(err)
	}
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
	return javaHeap{histogram: histogram, dump: dump}
}
