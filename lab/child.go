package lab

import (
	"bytes"
	"sync"
	"syscall"
)

// childAttr puts the child in its own process group, so that the whole group can
// be killed, and asks the kernel to kill it when the server dies.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup sends sig to the child's process group.
func killGroup(pid int, sig syscall.Signal) {
	if pid > 0 {
		syscall.Kill(-pid, sig)
	}
}

// tail keeps the last bytes written to it, for the error message of a failed child.
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

// String returns the last non-empty line.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := bytes.Split(bytes.TrimSpace(t.buf), []byte("\n"))
	return string(lines[len(lines)-1])
}
