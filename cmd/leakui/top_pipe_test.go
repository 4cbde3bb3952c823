//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/hostile"
)

// TestTopReadsAPipeOnce: `leakui top` on a named pipe (as `<(zcat …)` gives)
// reads it once, whole, instead of streaming it twice, and prints the same
// table as for the file.
func TestTopReadsAPipeOnce(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "heap.pb.gz")
	if err := os.WriteFile(file, hostile.Gzip(hostile.SmallProfile()), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		data, _ := os.ReadFile(file)
		w.Write(data)
		w.Close()
	}()
	done := make(chan [3]string, 1)
	go func() {
		code, out, errs := runCLI(t, "top", fifo)
		done <- [3]string{strconv.Itoa(code), out, errs}
	}()
	var got [3]string
	select {
	case got = <-done:
	case <-time.After(30 * time.Second):
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close() // the second open returns, and its read ends
		}
		t.Fatal("leakui top on a pipe did not finish: it opened the pipe twice")
	}
	_, want, _ := runCLI(t, "top", file)
	if got[0] != "0" || got[1] != want {
		t.Errorf("exit %s, stderr %q:\n%s\nthe file's:\n%s", got[0], got[2], got[1], want)
	}
}
