package capture

import (
	"archive/tar"
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/leakui/leakui/analyze"
)

// Bundle is a capture bundle read into memory: its manifest and the files its
// steps wrote.
type Bundle struct {
	Manifest Manifest
	files    map[string][]byte
	size     int64
}

// File returns the output of the step called name in the given snapshot (0 for
// a JVM's steps), the step, and whether the step wrote one.
func (b *Bundle) File(name string, snapshot int) ([]byte, Step, bool) {
	s, ok := b.Manifest.Step(name, snapshot)
	if !ok || s.File == "" {
		return nil, s, false
	}
	data, ok := b.files[s.File]
	return data, s, ok
}

// Size is the bytes of the files the bundle holds.
func (b *Bundle) Size() int64 { return b.size }

// Limits bound what Read accepts: each file, all of them, and how many. Zero
// fields take the defaults.
type Limits struct {
	MaxFileBytes  int64
	MaxTotalBytes int64
}

// The default limits: a JVM's thread dump or class histogram of thousands of
// threads or classes is a few tens of megabytes.
const (
	DefaultMaxFileBytes  = 256 << 20
	DefaultMaxTotalBytes = 512 << 20
)

func (l Limits) withDefaults() Limits {
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = DefaultMaxFileBytes
	}
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = DefaultMaxTotalBytes
	}
	return l
}

// Open reads a bundle from r, gzip-compressed (as `leakui capture` writes it),
// zstd-compressed or a plain tar, with at most limit bytes decompressed (see
// analyze.Decompress, which stops a gzip bomb as it streams); see Read.
func Open(r io.Reader, limit int64, lim Limits, budget *analyze.Budget) (*Bundle, error) {
	rc, _, err := analyze.Decompress(r, limit)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return Read(rc, lim, budget)
}

// IsBundle tells whether head, the first bytes of a decompressed input, is the
// start of a capture bundle (analyze.DetectKind's KindCapture).
func IsBundle(head []byte) bool { return analyze.DetectKind(head).Kind == analyze.KindCapture }

// Read reads a bundle from r, a tar stream (already decompressed). It keeps
// only what a bundle may hold and refuses the rest before reading it: the first
// file must be manifest.json; every other entry must be a regular file (no
// symlink, hard link, directory or device) whose name is a plain name (no path,
// no "..") that the manifest lists, once; a file's declared size must be within
// lim.MaxFileBytes and the sum within lim.MaxTotalBytes (ErrTooLarge), and every
// byte kept is charged to budget first (nil: unbounded). A file the manifest
// lists but the tar lacks, or a tar cut short, is ErrMalformed.
func Read(r io.Reader, lim Limits, budget *analyze.Budget) (*Bundle, error) {
	lim = lim.withDefaults()
	br := bufio.NewReader(r)
	if head, _ := br.Peek(1); len(head) == 0 {
		return nil, analyze.ErrEmpty
	}
	tr := tar.NewReader(br)
	hdr, err := tr.Next()
	if err != nil {
		return nil, fmt.Errorf("%w: not a tar archive (%v)", analyze.ErrUnsupportedKind, err)
	}
	if hdr.Name != ManifestName || hdr.Typeflag != tar.TypeReg {
		return nil, fmt.Errorf("%w: a tar archive whose first entry is %q, not a leakui capture bundle (its first file is %s)",
			analyze.ErrUnsupportedKind, clip(hdr.Name), ManifestName)
	}
	if hdr.Size > maxManifestBytes {
		return nil, fmt.Errorf("%w: capture bundle: manifest.json declares %s; at most %s", analyze.ErrTooLarge,
			analyze.FormatBytes(hdr.Size), analyze.FormatBytes(maxManifestBytes))
	}
	meter := analyze.NewMeter(budget)
	defer meter.Settle()
	if err := meter.Charge(hdr.Size); err != nil {
		return nil, err
	}
	raw, err := readEntry(tr, hdr)
	if err != nil {
		return nil, err
	}
	m, err := parseManifest(raw)
	if err != nil {
		return nil, err
	}
	listed := map[string]bool{}
	for _, s := range m.Steps {
		if s.File != "" {
			listed[s.File] = true
		}
	}
	b := &Bundle{Manifest: *m, files: map[string][]byte{}}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: capture bundle: %v", analyze.ErrMalformed, err)
		}
		if err := checkEntry(hdr, listed, b.files); err != nil {
			return nil, err
		}
		if hdr.Size > lim.MaxFileBytes {
			return nil, fmt.Errorf("%w: capture bundle: %s declares %s; a file may hold at most %s", analyze.ErrTooLarge,
				clip(hdr.Name), analyze.FormatBytes(hdr.Size), analyze.FormatBytes(lim.MaxFileBytes))
		}
		if b.size+hdr.Size > lim.MaxTotalBytes {
			return nil, fmt.Errorf("%w: capture bundle: its files declare more than %s", analyze.ErrTooLarge, analyze.FormatBytes(lim.MaxTotalBytes))
		}
		if err := meter.Charge(hdr.Size); err != nil {
			return nil, err
		}
		data, err := readEntry(tr, hdr)
		if err != nil {
			return nil, err
		}
		b.files[hdr.Name] = data
		b.size += hdr.Size
	}
	for name := range listed {
		if _, ok := b.files[name]; !ok {
			return nil, fmt.Errorf("%w: capture bundle: the manifest lists %s, which the archive lacks", analyze.ErrMalformed, clip(name))
		}
	}
	return b, nil
}

// checkEntry refuses an entry a bundle may not hold.
func checkEntry(hdr *tar.Header, listed map[string]bool, have map[string][]byte) error {
	switch hdr.Typeflag {
	case tar.TypeReg: // (the reader turns the old TypeRegA into TypeReg)
	case tar.TypeSymlink, tar.TypeLink:
		return fmt.Errorf("%w: capture bundle: %s is a link (to %s); a bundle holds only regular files", analyze.ErrMalformed, clip(hdr.Name), clip(hdr.Linkname))
	case tar.TypeDir:
		return fmt.Errorf("%w: capture bundle: %s is a directory; a bundle holds only regular files", analyze.ErrMalformed, clip(hdr.Name))
	default:
		return fmt.Errorf("%w: capture bundle: %s is an entry of type %q; a bundle holds only regular files", analyze.ErrMalformed, clip(hdr.Name), string(hdr.Typeflag))
	}
	if err := checkName(hdr.Name); err != nil {
		return fmt.Errorf("%w: capture bundle: the entry %q: %v", analyze.ErrMalformed, clip(hdr.Name), err)
	}
	if !listed[hdr.Name] {
		return fmt.Errorf("%w: capture bundle: %s is not listed in the manifest", analyze.ErrMalformed, clip(hdr.Name))
	}
	if _, dup := have[hdr.Name]; dup {
		return fmt.Errorf("%w: capture bundle: %s appears twice", analyze.ErrMalformed, clip(hdr.Name))
	}
	if hdr.Size < 0 {
		return fmt.Errorf("%w: capture bundle: %s declares a negative size", analyze.ErrMalformed, clip(hdr.Name))
	}
	return nil
}

// readEntry reads an entry's declared bytes; fewer is a bundle cut short.
func readEntry(tr *tar.Reader, hdr *tar.Header) ([]byte, error) {
	data := make([]byte, hdr.Size)
	if _, err := io.ReadFull(tr, data); err != nil {
		if errors.Is(err, analyze.ErrTooLarge) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: capture bundle: %s is cut short (%v)", analyze.ErrMalformed, clip(hdr.Name), err)
	}
	return data, nil
}
