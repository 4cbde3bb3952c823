package recovery

import (
	"encoding/binary"
	"io"
	"runtime"
)

// gzipReader reads a gzip stream (RFC 1952, members may be concatenated as
// GZIPInputStream allows) with the off-heap inflater. It models a JVM
// GZIPInputStream: a small object on the heap that owns native memory, freed by
// Close or, when the object is never closed, only after the garbage collector
// finds it unreachable (runtime.AddCleanup in the role of the finalizer).
type gzipReader struct {
	inflater
	block   *offheapBlock
	cleanup runtime.Cleanup
	err     error // sticky decoding error
	eof     bool  // the last member's trailer is read and checked
	closed  bool
}

// gzip header flags (RFC 1952 2.3.1).
const (
	gzipFlagText    = 1 << 0
	gzipFlagHCRC    = 1 << 1
	gzipFlagExtra   = 1 << 2
	gzipFlagName    = 1 << 3
	gzipFlagComment = 1 << 4
)

// newGzipReader maps the off-heap block, attaches the cleanup and reads the first
// member header. On error nothing stays mapped.
func newGzipReader(src []byte) (*gzipReader, error) {
	block, err := allocOffheap()
	if err != nil {
		return nil, err
	}
	g := &gzipReader{block: block}
	g.cleanup = runtime.AddCleanup(g, releaseByCleanup, block)
	g.init(block.mem, src)
	if err := g.memberHeader(true); err != nil {
		g.Close()
		return nil, err
	}
	runtime.KeepAlive(g)
	return g, nil
}

// memberHeader reads a gzip member header. When first is false, the end of the
// input there is the clean end of the stream.
func (g *gzipReader) memberHeader(first bool) error {
	var head [10]byte
	for i := range head {
		b, ok := g.alignedByte()
		if !ok {
			if i == 0 && !first {
				g.eof = true
				return nil
			}
			return g.inputError()
		}
		head[i] = b
	}
	if head[0] != 0x1f || head[1] != 0x8b {
		return inflateError("not a gzip member (bad magic)")
	}
	if head[2] != 8 {
		return inflateError("unknown compression method")
	}
	// Reserved flag bits are ignored, as GZIPInputStream.readHeader and
	// compress/gzip ignore them (RFC 1952 asks for an error; neither raises one).
	flags := head[3]
	if flags&gzipFlagExtra != 0 {
		lo, ok1 := g.alignedByte()
		hi, ok2 := g.alignedByte()
		if !ok1 || !ok2 {
			return g.inputError()
		}
		for range int(lo) | int(hi)<<8 {
			if _, ok := g.alignedByte(); !ok {
				return g.inputError()
			}
		}
	}
	for _, f := range []byte{gzipFlagName, gzipFlagComment} {
		if flags&f == 0 {
			continue
		}
		for {
			b, ok := g.alignedByte()
			if !ok {
				return g.inputError()
			}
			if b == 0 {
				break
			}
		}
	}
	if flags&gzipFlagHCRC != 0 {
		for range 2 {
			if _, ok := g.alignedByte(); !ok {
				return g.inputError()
			}
		}
	}
	g.state, g.final, g.copyLen = stateBlockHeader, false, 0
	g.memberStart, g.crcPos, g.crc = g.wpos, g.wpos, 0
	return nil
}

// memberTrailer checks CRC-32 and ISIZE of the member just decoded, then reads the
// next member header or notes the end of the stream.
func (g *gzipReader) memberTrailer() error {
	g.align()
	var tail [8]byte
	for i := range tail {
		b, ok := g.alignedByte()
		if !ok {
			return g.inputError()
		}
		tail[i] = b
	}
	if binary.LittleEndian.Uint32(tail[:4]) != g.crc {
		return inflateError("CRC-32 of the decompressed data does not match the trailer")
	}
	if binary.LittleEndian.Uint32(tail[4:]) != uint32(g.wpos-g.memberStart) {
		return inflateError("decompressed size does not match the trailer")
	}
	return g.memberHeader(false)
}

// byteReadAhead is how much ReadByte decodes when nothing is left unread: a few
// varints' worth, so that reading a record's length byte by byte stays cheap.
const byteReadAhead = 256

// fill decodes until some output is unread, the stream ends or fails. Like zlib
// writing into the caller's buffer, it decodes about want bytes, no more, so
// the window's pages become resident only as far as the reader got.
func (g *gzipReader) fill(want int) error {
	for g.unread() == 0 {
		if g.err != nil {
			return g.err
		}
		if g.eof {
			return io.EOF
		}
		if g.state == stateBlockDone {
			g.err = g.memberTrailer()
			continue
		}
		g.err = g.decode(want)
		if g.err != nil && g.unread() > 0 {
			return nil // hand out what was decoded; the error comes next
		}
	}
	return nil
}

// Read implements io.Reader over the decompressed stream.
func (g *gzipReader) Read(p []byte) (int, error) {
	defer runtime.KeepAlive(g)
	if g.closed {
		return 0, ErrIteratorClosed
	}
	if len(p) == 0 {
		return 0, nil
	}
	if err := g.fill(len(p)); err != nil {
		return 0, err
	}
	return g.readOut(p), nil
}

// ReadByte implements io.ByteReader over the decompressed stream.
func (g *gzipReader) ReadByte() (byte, error) {
	if g.closed {
		return 0, ErrIteratorClosed
	}
	if g.rpos == g.wpos {
		if err := g.fill(byteReadAhead); err != nil {
			return 0, err
		}
	}
	b := g.win[g.rpos&windowMask]
	g.rpos++
	runtime.KeepAlive(g)
	return b, nil
}

// Close unmaps the off-heap block now and cancels the cleanup. It is idempotent.
func (g *gzipReader) Close() error {
	if g.closed {
		return nil
	}
	g.closed = true
	g.cleanup.Stop()
	g.win, g.tables = nil, nil
	g.block.release(false)
	return nil
}
