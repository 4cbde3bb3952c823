package logs

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"go.uber.org/goleak"
)

// TestLogPrefetch checks that read-ahead hands over every byte in order, then
// the reader's error, and that closing it midway stops its goroutine.
func TestLogPrefetch(t *testing.T) {
	defer goleak.VerifyNone(t)
	data := bytes.Repeat([]byte("0123456789abcdef\n"), 10000)
	boom := errors.New("boom")
	p := newLogPrefetch(io.MultiReader(bytes.NewReader(data), &errAfterReader{err: boom}), 1000, 2)
	got, err := io.ReadAll(p)
	p.Close()
	if !bytes.Equal(got, data) || !errors.Is(err, boom) {
		t.Errorf("read %d bytes (equal %v), err %v; want %d bytes then boom", len(got), bytes.Equal(got, data), err, len(data))
	}
	p = newLogPrefetch(bytes.NewReader(data), 1000, 2)
	buf := make([]byte, 1500)
	if n, err := io.ReadFull(p, buf); n != 1500 || err != nil || !bytes.Equal(buf, data[:1500]) {
		t.Errorf("first 1500 bytes: %d, %v", n, err)
	}
	p.Close() // the goroutine is blocked handing over a chunk: it must stop
}
