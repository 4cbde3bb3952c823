//go:build !linux

package hprof

import (
	"fmt"
	"unsafe"
)

// On systems other than Linux the regions are Go memory: they grow by copying
// and are not written to files.

// mapRegion allocates size bytes (at least one page), able to grow to limit.
func (rs *regions) mapRegion(size, limit int64, file bool, what string) (*region, error) {
	r := &region{reserved: pageRound(max(limit, size, 1)), what: what}
	r.base = unsafe.Pointer(unsafe.SliceData(make([]uint64, pageSize/8)))
	r.size = pageSize
	if err := rs.growRegion(r, size); err != nil {
		return nil, err
	}
	return r, nil
}

// growRegion makes the first size bytes of r usable, copying them to a larger
// block.
func (rs *regions) growRegion(r *region, size int64) error {
	if size <= r.size {
		return nil
	}
	if size > r.reserved {
		return fmt.Errorf("heap dump: %s outgrew its %d bytes", r.what, r.reserved)
	}
	to := pageRound(size)
	buf := make([]uint64, to/8)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(buf))), to), unsafe.Slice((*byte)(r.base), r.size))
	if rs.byBase[r.base] == r {
		delete(rs.byBase, r.base)
		r.base = unsafe.Pointer(unsafe.SliceData(buf))
		rs.byBase[r.base] = r
	} else {
		r.base = unsafe.Pointer(unsafe.SliceData(buf))
	}
	r.size = to
	return nil
}

func (rs *regions) dropPages(r *region, from, to int64) {}

func (rs *regions) keepInMemory(r *region) error { return nil }

func (rs *regions) toFile(r *region) bool { return true }

func (rs *regions) unmap(r *region) {
	unmapPages(r)
	rs.uncharge(r)
}

// unmapPages lets go of r's memory.
func unmapPages(r *region) { r.base = nil }

// fileBacked tells whether this build maps temporary files.
const fileBacked = false
