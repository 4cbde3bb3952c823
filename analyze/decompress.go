package analyze

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// DefaultMaxDecompressed is the default cap on the decompressed size of one input.
const DefaultMaxDecompressed = 1 << 30

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// DetectCompression tells the container format from the first bytes of an input.
func DetectCompression(head []byte) Compression {
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		return CompressionGzip
	case bytes.HasPrefix(head, zstdMagic):
		return CompressionZstd
	}
	return CompressionNone
}

// Decompress returns a reader of r's content with one layer of gzip or zstd removed
// (or r itself when it is not compressed) and the compression found. The reader
// fails with ErrTooLarge as soon as more than limit decompressed bytes are read, so a
// compression bomb is caught while streaming, never by inflating it first; a limit
// ≤ 0 means DefaultMaxDecompressed. A compressed stream inside a compressed stream is
// refused with ErrUnsupportedKind. Text with a UTF-16 byte order mark (after
// decompression) is transcoded to UTF-8 as it streams, the BOM dropped, and the limit
// counts the UTF-8 bytes; EncodingOf tells the reader's encoding. Close the returned
// reader.
func Decompress(r io.Reader, limit int64) (io.ReadCloser, Compression, error) {
	if limit <= 0 {
		limit = DefaultMaxDecompressed
	}
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(4)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, CompressionNone, err
	}
	if len(head) == 0 {
		return nil, CompressionNone, ErrEmpty
	}
	c := DetectCompression(head)
	var inner io.ReadCloser
	switch c {
	case CompressionNone:
		return newDecompressed(br, nil, c, limit), c, nil
	case CompressionGzip:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, c, fmt.Errorf("%w: gzip header: %v", ErrMalformed, err)
		}
		zr.Multistream(true)
		inner = zr
	case CompressionZstd:
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(uint64(limit)+1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, c, fmt.Errorf("%w: zstd header: %v", ErrMalformed, err)
		}
		inner = zr.IOReadCloser()
	}
	nb := bufio.NewReaderSize(inner, 64<<10)
	if nested, _ := nb.Peek(4); DetectCompression(nested) != CompressionNone {
		inner.Close()
		return nil, c, fmt.Errorf("%w: %s inside %s (decompress it once before uploading)", ErrUnsupportedKind, DetectCompression(nested), c)
	}
	return newDecompressed(nb, inner, c, limit), c, nil
}

// newDecompressed caps br's content at limit bytes, transcoding it to UTF-8 first
// when it starts with a UTF-16 byte order mark. closer is the decoder to close, nil
// for uncompressed input.
func newDecompressed(br *bufio.Reader, closer io.Closer, c Compression, limit int64) *decompressed {
	var src io.Reader = br
	bom, _ := br.Peek(2)
	enc := DetectEncoding(bom)
	if enc != "" {
		src = newUTF16Reader(br, enc)
	}
	return &decompressed{limitedReader: limitedReader{r: src, left: limit, limit: limit}, closer: closer, c: c, enc: enc}
}

// decompressed is a size-capped decompressing (and transcoding) reader that maps
// the decoders' errors to ErrMalformed.
type decompressed struct {
	limitedReader
	closer io.Closer
	c      Compression
	enc    string
}

func (d *decompressed) Read(p []byte) (int, error) {
	n, err := d.limitedReader.Read(p)
	if err != nil && d.c != CompressionNone && !errors.Is(err, io.EOF) && !errors.Is(err, ErrTooLarge) {
		err = fmt.Errorf("%w: %s stream: %v", ErrMalformed, d.c, err)
	}
	return n, err
}

// Encoding is the encoding the content was transcoded from (see EncodingOf).
func (d *decompressed) Encoding() string { return d.enc }

// Close closes the decoder, if there is one.
func (d *decompressed) Close() error {
	if d.closer == nil {
		return nil
	}
	return d.closer.Close()
}

// limitedReader fails with ErrTooLarge once more than limit bytes are read.
type limitedReader struct {
	r     io.Reader
	left  int64
	limit int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, fmt.Errorf("%w: more than %s after decompression", ErrTooLarge, FormatBytes(l.limit))
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n - int(-l.left), fmt.Errorf("%w: more than %s after decompression", ErrTooLarge, FormatBytes(l.limit))
	}
	return n, err
}

// ReadAllLimited decompresses r (see Decompress) and returns all of its content.
func ReadAllLimited(r io.Reader, limit int64) ([]byte, Compression, error) {
	rc, c, err := Decompress(r, limit)
	if err != nil {
		return nil, c, err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, c, err
	}
	return b, c, nil
}
