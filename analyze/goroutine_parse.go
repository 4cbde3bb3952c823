package analyze

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/google/pprof/profile"
)

// ParseGoroutineDump reads any goroutine input leakui accepts, gzip- or
// zstd-compressed or not: a goroutine profile in profile.proto, a debug=1 text
// profile, or text tracebacks (debug=2, runtime.Stack(buf, true), panic, fatal
// error and SIGQUIT output, with other text around them). Text is parsed as it
// streams; at most limit bytes are read after decompression (≤ 0 means
// DefaultMaxDecompressed).
//
// A dump cut short is parsed as far as it goes and flagged Truncated. Input that is
// some other kind (a heap profile, a log without goroutines, a JVM thread dump) is
// refused with ErrUnsupportedKind, a goroutine dump without a single readable
// goroutine with ErrMalformed, empty input with ErrEmpty.
func ParseGoroutineDump(r io.Reader, limit int64) (*GoroutineDump, error) {
	rc, _, err := Decompress(r, limit)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, SniffSize)
	head, err := br.Peek(SniffSize)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	if len(bytes.TrimSpace(head)) == 0 {
		return nil, ErrEmpty
	}
	det := DetectKind(head)
	switch {
	case det.Kind == KindProfile && det.Format == "profile.proto":
		data, err := io.ReadAll(br)
		if err != nil {
			return nil, err
		}
		p, err := profile.ParseData(data)
		if err != nil {
			return nil, fmt.Errorf("%w: profile.proto: %v", ErrMalformed, err)
		}
		return GoroutineDumpFromProfile(p)
	case det.Kind == KindGoroutines, det.Kind == KindLog:
		d, err := parseGoroutineText(br)
		if err != nil {
			return nil, err
		}
		if len(d.Goroutines) == 0 && d.DeclaredTotal != 0 {
			if det.Kind == KindLog {
				return nil, fmt.Errorf("%w: %s without goroutine tracebacks", ErrUnsupportedKind, det)
			}
			return nil, fmt.Errorf("%w: %s in which no goroutine could be read", ErrMalformed, det)
		}
		return d, nil
	}
	return nil, fmt.Errorf("%w: %s is not a goroutine dump or profile", ErrUnsupportedKind, det)
}
