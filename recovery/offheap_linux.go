//go:build linux

package recovery

import (
	"fmt"
	"syscall"
)

// mapAnonymous maps n bytes of private anonymous memory outside the Go heap.
//
// MAP_POPULATE makes the pages resident at once. A JVM's Inflater gets its state and
// window from malloc, which in a long-running process hands out recycled, already
// resident memory; populating reproduces that deterministically, so the process RSS
// grows by exactly the mapped size per unclosed iterator.
func mapAnonymous(n int) ([]byte, error) {
	mem, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS|syscall.MAP_POPULATE)
	if err != nil {
		return nil, fmt.Errorf("recovery: mmap %d bytes for a gzip window: %w", n, err)
	}
	return mem, nil
}

// unmapAnonymous returns the memory to the kernel; the RSS drops at once.
func unmapAnonymous(mem []byte) {
	// munmap of a mapping we made can only fail on a bad address, which would be
	// a bug here; there is nothing better to do than to keep going.
	_ = syscall.Munmap(mem)
}
