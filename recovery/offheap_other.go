//go:build !linux

package recovery

// mapAnonymous falls back to the Go heap where the Linux mmap model is not
// available: the code runs, but the gzip variant no longer models off-heap memory.
func mapAnonymous(n int) ([]byte, error) { return make([]byte, n), nil }

func unmapAnonymous([]byte) {}

// residentBytes cannot tell resident pages here; it counts the whole block.
func residentBytes(mem []byte) (int64, error) { return int64(len(mem)), nil }
