package goroutines

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/google/pprof/profile"

	"github.com/leakui/leakui/analyze"
)

// Parse reads any goroutine input leakui accepts, gzip- or
// zstd-compressed or not: a goroutine profile in profile.proto, a debug=1 text
// profile, or text tracebacks (debug=2, runtime.Stack(buf, true), panic, fatal
// error and SIGQUIT output, with other text around them). Text is parsed as it
// streams; at most limit bytes are read after decompression (≤ 0 means
// DefaultMaxDecompressed). UTF-16 text (with its byte order mark) is read as
// UTF-8, and a dump whose every line carries a log collector's prefix (`kubectl logs
// --timestamps`, journald, Docker JSON lines; see analyze.DetectLinePrefix) is read
// without it, also when the dump is far into a container log.
//
// A dump cut short is parsed as far as it goes and flagged Truncated. Input that is
// some other kind (a heap profile, a log without goroutines, a JVM thread dump) is
// refused with ErrUnsupportedKind, a goroutine dump without a single readable
// goroutine with ErrMalformed, empty input with ErrEmpty.
func Parse(r io.Reader, limit int64) (*Dump, error) {
	return ParseWithin(r, limit, nil)
}

// ParseWithin is Parse within a memory budget (nil: unbounded): every goroutine,
// frame, string and stack is charged at its in-memory size (with what grouping
// the dump will need) before it is kept, so a dump that would not fit is refused
// with the budget's error (ErrTooLarge or ErrBusy, naming the limit) as soon as
// what was read of it has used the budget up. What the dump holds stays charged
// (see Dump.MemSize); release the budget when the dump is no longer needed.
func ParseWithin(r io.Reader, limit int64, budget *analyze.Budget) (*Dump, error) {
	rc, _, err := analyze.Decompress(r, limit)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, analyze.SniffSize)
	head, err := br.Peek(analyze.SniffSize)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	if len(bytes.TrimSpace(head)) == 0 {
		return nil, analyze.ErrEmpty
	}
	det := analyze.DetectKind(head)
	switch {
	case det.Kind == analyze.KindProfile && det.Format == "profile.proto":
		// The profile and what decoding it holds are charged to a budget of
		// their own, given back once the dump is made of them.
		local := budget.Child(budget.Remaining())
		defer local.Release()
		data, err := readProtoWithin(br, local)
		if err != nil {
			return nil, err
		}
		p, err := profile.ParseData(data)
		if err != nil {
			return nil, fmt.Errorf("%w: profile.proto: %v", analyze.ErrMalformed, err)
		}
		return dumpFromProfileWithin(p, budget)
	case det.Kind == analyze.KindGoroutines, det.Kind == analyze.KindLog:
		prefix := det.Prefix
		if prefix == "" {
			prefix = analyze.DetectLinePrefix(head)
		}
		d, err := parseGoroutineTextWithin(analyze.StripLinePrefix(br, prefix), budget)
		if err != nil {
			return nil, err
		}
		if len(d.Goroutines) == 0 && d.DeclaredTotal != 0 {
			if det.Kind == analyze.KindLog {
				return nil, fmt.Errorf("%w: %s without goroutine tracebacks", analyze.ErrUnsupportedKind, det)
			}
			return nil, fmt.Errorf("%w: %s in which no goroutine could be read", analyze.ErrMalformed, det)
		}
		return d, nil
	}
	return nil, fmt.Errorf("%w: %s is not a goroutine dump or profile", analyze.ErrUnsupportedKind, det)
}
