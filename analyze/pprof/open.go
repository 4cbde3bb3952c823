package pprof

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/leakui/leakui/analyze"
)

// Source is where a profile's bytes are: a file (File), which a profile may read
// again, or a reader (Reader), read once.
type Source struct {
	path string
	r    io.Reader
}

// File is the profile in the file at path. A regular file that decompresses to
// 8 MiB or more (streamAbove) is read again for each report rather than held in
// memory when it is a profile.proto (its tables are held, its samples decoded
// again from the file for each walk); a smaller one is decoded into memory,
// which reads it once; a pipe or a device is read once, and its bytes are kept
// while the profile is open.
func File(path string) Source { return Source{path: path} }

// streamAbove is the decompressed size from which a profile.proto file is
// streamed: its decoded samples would hold tens of MiB, where streaming holds
// its tables (a few MiB) at the cost of a second decompression. Below it the
// profile is held. A file whose size is not known beforehand (zstd without a
// content size) streams.
var streamAbove int64 = 8 << 20

// Reader is the profile r reads, read once. The profile's samples are held in
// memory; its decompressed bytes are kept only when `go tool pprof`'s text
// needs the reference parser (legacy formats, unsymbolized frames, drop_frames).
func Reader(r io.Reader) Source { return Source{r: r} }

// Options say how a profile is opened.
type Options struct {
	// Limit bounds the profile's bytes after decompression (0:
	// analyze.DefaultMaxDecompressed); a larger profile is refused with
	// ErrTooLarge.
	Limit int64
	// Budget is charged with what the profile holds before it is allocated, so
	// that a small file that would decode to gigabytes is refused with the
	// budget's error (ErrTooLarge or ErrBusy) within milliseconds; nil is
	// unbounded. A profile held in memory keeps nothing charged when Open
	// returns (the caller accounts for it: MemSize); a profile that reads its
	// file again keeps its tables charged until Close. Reports charge it for
	// what they build while they run.
	Budget *analyze.Budget
	// KeepBytes keeps a Reader's decompressed bytes while the profile is open
	// (MemSize counts them), so that the reports that read it again with
	// pprof's own parser (Labels, a Filter with TagFocus or TagIgnore) work on
	// a profile read from a reader.
	KeepBytes bool
}

// Open reads any profile `go tool pprof` reads (profile.proto gzipped or not,
// legacy text heap/growth/threadcreate, legacy binary CPU), as profile.Parse
// does for pprof: it is the one way into a profile. Where its samples live is
// the profile's own choice, made from the source: a large profile.proto file is
// read again for each report, anything else is decoded into memory; a report that
// must equal pprof's text where leakui's decoder cannot name the frames as pprof
// does reads the bytes again with pprof's own parser. Errors wrap ErrEmpty,
// ErrTooLarge, ErrBusy, ErrUnsupportedKind (for content that is not a profile)
// or ErrMalformed; a file that cannot be opened is the os package's error.
//
// A profile.proto's framing is checked while it streams in, so that a
// compression bomb that merely starts like a profile is refused at its first
// invalid byte, not after Limit bytes.
func Open(src Source, o Options) (*Profile, error) {
	if o.Limit <= 0 {
		o.Limit = analyze.DefaultMaxDecompressed
	}
	if src.r != nil {
		return openReader(src.r, o, o.KeepBytes)
	}
	st, err := os.Stat(src.path)
	if err != nil {
		return nil, err
	}
	open := func() (io.ReadCloser, error) { return os.Open(src.path) }
	if !st.Mode().IsRegular() {
		f, err := open()
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return openReader(f, o, true) // a pipe is read once
	}
	f, err := os.Open(src.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if hint := analyze.SizeHint(f); hint == 0 || hint >= streamAbove {
		p, err := openStreamed(open, o.Limit, o.Budget)
		if !errors.Is(err, errNotStreamable) {
			return p, err
		}
	}
	p, err := openReader(f, o, false)
	if err != nil {
		return nil, err
	}
	p.reopen, p.data = open, nil
	return p, nil
}

// openReader decodes the profile r reads into memory, keeping its decompressed
// bytes when keep is set or the reference parser will need them.
func openReader(r io.Reader, o Options, keep bool) (*Profile, error) {
	p, data, err := loadWithin(r, o.Limit, o.Budget)
	if err != nil {
		return nil, err
	}
	p.limit, p.budget = o.Limit, o.Budget
	if keep || !p.textExact() {
		p.data = data
	}
	return p, nil
}

// Close gives back what the profile charged to its budget (a profile that reads
// its file again holds its tables charged). A profile held in memory holds
// nothing charged; Close is then a no-op. Close the profile after its reports
// and the profiles filtered from it.
func (p *Profile) Close() {
	if p.stream != nil && p.parent == nil {
		p.stream.close()
	}
}

// errNeedsBytes is the error of a report that needs the reference parser on a
// profile whose bytes are gone.
var errNeedsBytes = fmt.Errorf("%w: this report reads the profile again with pprof's parser, and the profile was read once from a reader; open it from a file", analyze.ErrInvalidParameter)

// rawBytes returns the profile's decompressed bytes: the ones kept, or read
// again from the file within its limit and budget (charged to b).
func (p *Profile) rawBytes(b *analyze.Budget) ([]byte, error) {
	root := p.root()
	if root.data != nil {
		return root.data, nil
	}
	if root.reopen == nil {
		return nil, errNeedsBytes
	}
	f, err := root.reopen()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rc, _, err := analyze.Decompress(f, root.limit)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, &chargingReader{r: rc, budget: b}); err != nil {
		return nil, err
	}
	if buf.Len() == 0 {
		return nil, analyze.ErrEmpty
	}
	return buf.Bytes(), nil
}

// root is the profile this one was filtered from (itself when it was opened).
func (p *Profile) root() *Profile {
	for p.parent != nil {
		p = p.parent
	}
	return p
}
