package logs

import (
	"errors"
	"io"
)

// prefetch reads a stream ahead of the scanner in its own goroutine, so
// that decompression (or a pipe) and scanning run on two cores. It holds at
// most depth+1 buffers. Close stops the goroutine and waits for it.
type prefetch struct {
	chunks chan chunk
	free   chan []byte
	quit   chan struct{}
	done   chan struct{}
	cur    []byte // unread part of buf
	buf    []byte // the chunk being read, returned to free when used up
	err    error
}

type chunk struct {
	b   []byte
	err error
}

func newLogPrefetch(r io.Reader, size, depth int) *prefetch {
	p := &prefetch{chunks: make(chan chunk, depth), free: make(chan []byte, depth+1),
		quit: make(chan struct{}), done: make(chan struct{})}
	for range depth + 1 {
		p.free <- make([]byte, size)
	}
	go func() {
		defer close(p.done)
		for {
			var buf []byte
			select {
			case buf = <-p.free:
			case <-p.quit:
				return
			}
			n, err := io.ReadFull(r, buf)
			if errors.Is(err, io.ErrUnexpectedEOF) {
				err = io.EOF
			}
			select {
			case p.chunks <- chunk{buf[:n], err}:
			case <-p.quit:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return p
}

// Read returns the bytes read ahead, then the reader's error.
func (p *prefetch) Read(b []byte) (int, error) {
	for len(p.cur) == 0 {
		if p.err != nil {
			return 0, p.err
		}
		if p.buf != nil {
			p.free <- p.buf[:cap(p.buf)]
			p.buf = nil
		}
		c := <-p.chunks
		p.cur, p.buf, p.err = c.b, c.b, c.err
	}
	n := copy(b, p.cur)
	p.cur = p.cur[n:]
	return n, nil
}

// Close stops reading ahead and waits for the goroutine to end. A read in
// progress on the underlying reader is waited for.
func (p *prefetch) Close() {
	close(p.quit)
	<-p.done
}
