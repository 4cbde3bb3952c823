//go:build linux

package recovery

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// mapAnonymous maps n bytes of private anonymous memory outside the Go heap.
//
// Its pages become resident as the inflater first writes them, as the pages of
// zlib's malloc'd state and window do: an iterator that read one message holds
// the pages of its state and the first page of its window, not all 40 KiB
// (calibrated against a JVM in TestGzipModelMatchesTheJVM).
func mapAnonymous(n int) ([]byte, error) {
	mem, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS)
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

// residentBytes counts the resident pages of a mapping with mincore(2).
func residentBytes(mem []byte) (int64, error) {
	page := os.Getpagesize()
	vec := make([]byte, (len(mem)+page-1)/page)
	_, _, errno := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&mem[0])), uintptr(len(mem)), uintptr(unsafe.Pointer(&vec[0])))
	if errno != 0 {
		return 0, fmt.Errorf("recovery: mincore: %w", errno)
	}
	var n int64
	for _, v := range vec {
		if v&1 != 0 {
			n += int64(page)
		}
	}
	return n, nil
}
