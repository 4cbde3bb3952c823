//go:build linux

package hprof

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// readAhead asks the kernel to read [off, off+n) of r into the page cache in the
// background, when r is a file, so that a pass parses while the disk reads.
func readAhead(r io.ReaderAt, off, n int64) {
	if f, ok := r.(*os.File); ok {
		unix.Fadvise(int(f.Fd()), off, n, unix.FADV_WILLNEED)
	}
}
