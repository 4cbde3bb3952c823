package pprof

import (
	"errors"
	"io"
)

// prefetcher reads ahead of its reader on a goroutine of its own, so that a
// stream's decompression runs on one core while its fields are decoded on
// another: each walk of a StreamedProfile decompresses the whole file again.
// It owns the goroutine, which Close stops and waits for; Close must be called
// before the underlying reader is closed.
type prefetcher struct {
	full chan prefetched
	free chan []byte
	stop chan struct{}
	done chan struct{}
	// cur is what is left of the chunk being read, buf that chunk whole.
	cur, buf []byte
	err      error
}

type prefetched struct {
	b   []byte
	err error
}

// Chunks of decompressed bytes in flight and their size: what the prefetcher
// holds (prefetchChunks × prefetchChunkSize, charged by the stream).
const (
	prefetchChunks    = 4
	prefetchChunkSize = 64 << 10
)

// newPrefetcher starts reading r ahead.
func newPrefetcher(r io.Reader) *prefetcher {
	p := &prefetcher{
		full: make(chan prefetched, prefetchChunks),
		free: make(chan []byte, prefetchChunks),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	for range prefetchChunks {
		p.free <- make([]byte, prefetchChunkSize)
	}
	go p.fill(r)
	return p
}

// fill reads r into free chunks until r ends, fails or Close is called.
func (p *prefetcher) fill(r io.Reader) {
	defer close(p.done)
	for {
		var b []byte
		select {
		case b = <-p.free:
		case <-p.stop:
			return
		}
		n, err := io.ReadFull(r, b)
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = io.EOF
		}
		select {
		case p.full <- prefetched{b[:n], err}:
		case <-p.stop:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read reads what the goroutine has read.
func (p *prefetcher) Read(dst []byte) (int, error) {
	for len(p.cur) == 0 {
		if p.err != nil {
			return 0, p.err
		}
		if p.buf != nil {
			p.free <- p.buf[:cap(p.buf)] // never blocks: free has room for every chunk
			p.buf = nil
		}
		c := <-p.full
		p.buf, p.cur, p.err = c.b, c.b, c.err
	}
	n := copy(dst, p.cur)
	p.cur = p.cur[n:]
	return n, nil
}

// Close stops the goroutine and waits for it.
func (p *prefetcher) Close() {
	close(p.stop)
	<-p.done
}
