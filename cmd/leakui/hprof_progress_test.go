package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/leakui/leakui/internal/javatest"
)

// TestHprofProgress runs `leakui hprof` on a real dump with its progress on
// stderr: elsewhere than on a terminal, one plain line per stage, each stage
// named, no carriage return; on a terminal (a pseudo-terminal), a bar redrawn
// in place with carriage returns, ending with the time it took.
func TestHprofProgress(t *testing.T) {
	jh := javatest.Run(t, "../../analyze/hprof/testdata/LeakShape.java", true,
		[]string{"-XX:+UseSerialGC", "-Xmx128m"}, "6", "1048576", "100", "10")

	code, _, stderr := jvmRunCLI(t, "", "hprof", "-progress", "always", jh.Dump)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stderr, "\r") || strings.Contains(stderr, "\x1b") {
		t.Errorf("plain progress lines with carriage returns or escapes: %q", stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for _, stage := range []string{"read", "references", "dominators", "retained", "paths", "histogram", "names", "native"} {
		found := false
		for _, l := range lines {
			found = found || strings.HasPrefix(l, "leakui hprof: [") && strings.Contains(l, "] ") && strings.Contains(l, " "+stage+" ")
		}
		if !found {
			t.Errorf("no line for stage %q:\n%s", stage, stderr)
		}
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "leakui hprof: analyzed in ") {
		t.Errorf("last line %q", last)
	}
	if code, _, stderr := jvmRunCLI(t, "", "hprof", "-progress", "never", jh.Dump); code != 0 || stderr != "" {
		t.Errorf("-progress never: exit %d, stderr %q", code, stderr)
	}

	// On a terminal.
	master, slave := openPTY(t)
	read := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(master) // until the slave is closed (EIO)
		read <- b
	}()
	var out bytes.Buffer
	code = run(context.Background(), []string{"hprof", jh.Dump}, stdio{strings.NewReader(""), &out, slave})
	slave.Close()
	tty := string(<-read)
	master.Close()
	if code != 0 {
		t.Fatalf("exit %d: %s", code, tty)
	}
	if strings.Count(tty, "\r[") < 5 || !strings.Contains(tty, "#") || !strings.Contains(tty, "\r\x1b[Kanalyzed in ") || strings.Contains(tty, "leakui hprof: [") {
		t.Errorf("no bar redrawn in place on a terminal: %q", tty)
	}
}

// openPTY opens a pseudo-terminal pair.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return master, slave
}
