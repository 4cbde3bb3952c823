//go:build linux

package hprof

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// regionChunk is how much a file region maps at a time: the blocks it takes
// on the disk before they are written.
const regionChunk = windowBytes

// mapRegion reserves limit bytes of address space and makes the first size of them
// usable: anonymous memory, or with file the pages of an unlinked temporary file
// in dir (mapped shared, so that the kernel can write them back and drop them).
func (rs *regions) mapRegion(size, limit int64, file bool, what string) (*region, error) {
	limit = pageRound(max(limit, size, 1))
	p, err := unix.MmapPtr(-1, 0, nil, uintptr(limit), unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	if err != nil {
		return nil, fmt.Errorf("heap dump: reserving %d bytes of address space for %s: %w", limit, what, err)
	}
	r := &region{base: p, reserved: limit, what: what}
	if file {
		f, err := os.CreateTemp(rs.dir, "leakui-hprof-*")
		if err != nil {
			unix.MunmapPtr(p, uintptr(limit))
			return nil, err
		}
		// Unlinked at once: the pages live while the file is mapped and open, and
		// nothing is left behind whatever stops the process.
		os.Remove(f.Name())
		r.f = f
	}
	if err := rs.growRegion(r, size); err != nil {
		rs.unmap(r)
		return nil, err
	}
	return r, nil
}

// growRegion makes the first size bytes of r usable, in steps of regionChunk
// (anonymous memory page by page). A file region takes its blocks on the disk
// first (fallocate), so that a full disk is an error now, not a fault later.
func (rs *regions) growRegion(r *region, size int64) error {
	if size <= r.size {
		return nil
	}
	if size > r.reserved {
		return fmt.Errorf("heap dump: %s outgrew its %d bytes", r.what, r.reserved)
	}
	step := int64(pageSize)
	if r.f != nil {
		step = regionChunk
	}
	to := min((size+step-1)/step*step, r.reserved)
	from := r.size
	at := unsafe.Add(r.base, from)
	if r.f == nil {
		if err := unix.Mprotect(unsafe.Slice((*byte)(at), to-from), unix.PROT_READ|unix.PROT_WRITE); err != nil {
			return fmt.Errorf("heap dump: mapping %s: %w", r.what, err)
		}
		if to-from >= hugeRegion {
			unix.Madvise(unsafe.Slice((*byte)(at), to-from), unix.MADV_HUGEPAGE)
		}
	} else {
		if r.inMemory {
			return fmt.Errorf("heap dump: %s grew while held in memory", r.what)
		}
		if err := rs.chargeDisk(to-from, r.what); err != nil {
			return err
		}
		r.disk += to - from
		if err := unix.Fallocate(int(r.f.Fd()), 0, from, to-from); err != nil {
			if !errors.Is(err, unix.EOPNOTSUPP) {
				return fmt.Errorf("heap dump: temporary file for %s: %w", r.what, err)
			}
			// A file system without fallocate: the file grows sparse.
			if err := r.f.Truncate(to); err != nil {
				return fmt.Errorf("heap dump: temporary file for %s: %w", r.what, err)
			}
		}
		if _, err := unix.MmapPtr(int(r.f.Fd()), from, at, uintptr(to-from), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_FIXED); err != nil {
			return fmt.Errorf("heap dump: mapping %s: %w", r.what, err)
		}
	}
	r.size = to
	return nil
}

// hugeRegion is the size from which anonymous regions ask for huge pages: the
// arrays read at random are faster with fewer TLB misses.
const hugeRegion = 64 << 20

// dropPages gives the pages of bytes [from, to) of a file region back to the
// kernel (they stay in the file); anonymous regions keep theirs.
func (rs *regions) dropPages(r *region, from, to int64) {
	if r.f == nil {
		return
	}
	from = pageRound(from)
	to = min(to/pageSize*pageSize, r.size)
	if to > from {
		unix.Madvise(unsafe.Slice((*byte)(unsafe.Add(r.base, from)), to-from), unix.MADV_DONTNEED)
	}
}

// keepInMemory maps anonymous memory over a file region just made, which the
// analysis is about to write at random: its pages are written to the file
// once, when it is released (toFile), instead of whenever the kernel cleans
// them, after which each next write to a cleaned page faults again.
func (rs *regions) keepInMemory(r *region) error {
	if r.f == nil || r.size == 0 {
		return nil
	}
	if _, err := unix.MmapPtr(-1, 0, r.base, uintptr(r.size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_FIXED); err != nil {
		return fmt.Errorf("heap dump: mapping %s: %w", r.what, err)
	}
	if r.size >= hugeRegion {
		unix.Madvise(unsafe.Slice((*byte)(r.base), r.size), unix.MADV_HUGEPAGE)
	}
	r.inMemory = true
	return nil
}

// toFile writes the pages of a region kept in memory to its file and maps the
// file in their place, which gives the memory back. When the write fails the
// pages stay in memory (and charged: the region stays held).
func (rs *regions) toFile(r *region) bool {
	if _, err := r.f.WriteAt(unsafe.Slice((*byte)(r.base), r.size), 0); err != nil {
		return false
	}
	if _, err := unix.MmapPtr(int(r.f.Fd()), 0, r.base, uintptr(r.size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_FIXED); err != nil {
		return false
	}
	r.inMemory = false
	return true
}

// unmap unmaps r and closes its file, which frees its blocks.
func (rs *regions) unmap(r *region) {
	unmapPages(r)
	rs.uncharge(r)
}

// unmapPages unmaps r and closes its file, which frees its blocks; it touches
// nothing r shares with other regions.
func unmapPages(r *region) {
	unix.MunmapPtr(r.base, uintptr(r.reserved))
	if r.f != nil {
		r.f.Close()
	}
}

// fileBacked tells whether this build maps temporary files.
const fileBacked = true
