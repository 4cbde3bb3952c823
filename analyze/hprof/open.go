package hprof

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/leakui/leakui/analyze"
)

// DefaultMaxInflated is the default cap on the size of a compressed dump once
// inflated.
const DefaultMaxInflated = 64 << 30

// OpenOptions are Parse's options and where a compressed dump is inflated.
type OpenOptions struct {
	Options
	// TempDir holds the inflated copy of a gzip or zstd dump ("" for os.TempDir).
	TempDir string
	// MaxInflated caps the inflated size (ErrTooLarge beyond); ≤ 0 means
	// DefaultMaxInflated.
	MaxInflated int64
}

// Open parses the heap dump in the file at path. A gzip- or zstd-compressed dump
// (jcmd GC.heap_dump -gz=1 writes gzip) is inflated into a temporary file first,
// since the analysis reads the dump three times. Close the Heap to close the file
// and remove the temporary copy.
func Open(path string, opt OpenOptions) (*Heap, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	if analyze.DetectCompression(head[:n]) != analyze.CompressionNone {
		tmp, err := inflate(f, opt)
		f.Close()
		if err != nil {
			return nil, err
		}
		f = tmp
	}
	opened := false
	defer func() {
		if !opened { // an error, or a panic unwinding the parse
			closeFile(f, f.Name() != path)
		}
	}()
	if opt.Options.TempDir == "" {
		opt.Options.TempDir = opt.TempDir
	}
	h, err := OpenFile(f, opt.Options)
	if err != nil {
		return nil, err
	}
	h.closer = func() error { return closeFile(f, f.Name() != path) }
	opened = true
	return h, nil
}

// OpenFile parses the uncompressed heap dump f; closing the Heap does not close f.
func OpenFile(f *os.File, opt Options) (*Heap, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return Parse(f, st.Size(), opt)
}

// Close releases the dump's file (and its inflated copy) when Open opened it, and
// gives back what the Heap charged to Options.Budget, dropping the arrays it
// charged them for; the Heap is not to be used after (a Report made before is).
func (h *Heap) Close() error {
	h.rs.freeAll()
	h.mem.release()
	h.ids, h.class, h.size, h.sortedIDs, h.sortedOrd, h.index = nil, nil, nil, nil, nil, idIndex{}
	h.out, h.strings, h.Roots, h.names = csr{}, nil, nil, nil
	h.idom, h.retained, h.domKids, h.bfs, h.depth, h.top, h.analyzed = nil, nil, csr{}, nil, nil, nil, false
	h.hashes, h.paths, h.pathVias, h.reach, h.weak, h.native = arrayHashes{}, nil, nil, nil, nil, nil
	if h.closer == nil {
		return nil
	}
	err := h.closer()
	h.closer = nil
	return err
}

func closeFile(f *os.File, temporary bool) error {
	err := f.Close()
	if temporary {
		err = errors.Join(err, os.Remove(f.Name()))
	}
	return err
}

// inflate copies the decompressed content of f into a temporary file.
func inflate(f *os.File, opt OpenOptions) (*os.File, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	limit := opt.MaxInflated
	if limit <= 0 {
		limit = DefaultMaxInflated
	}
	rc, _, err := analyze.Decompress(f, limit)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	tmp, err := os.CreateTemp(opt.TempDir, "leakui-hprof-*")
	if err != nil {
		return nil, err
	}
	var src io.Reader = rc
	if opt.Context != nil {
		src = ctxReader{opt.Context, rc}
	}
	if _, err := io.Copy(tmp, src); err != nil {
		closeFile(tmp, true)
		return nil, fmt.Errorf("inflating the dump: %w", err)
	}
	return tmp, nil
}

// ctxReader stops a copy once its context is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, fmt.Errorf("hprof: the analysis was stopped: %w", err)
	}
	return c.r.Read(p)
}
