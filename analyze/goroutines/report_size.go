package goroutines

import "unsafe"

// MemSize estimates the bytes the report holds beyond the dumps it was made
// from, for a cache to charge it to a memory budget: the Group structs, their
// goroutine and creator ids (8 bytes each), their label maps (the pairs'
// strings and about 48 bytes of map per pair) and their changes. Stacks and
// states are the dumps' own (shared, already charged as Dump.MemSize), so they
// are not counted; nor are the few fixed fields of the Report.
func (r *Report) MemSize() int64 {
	if r == nil {
		return 0
	}
	n := int64(unsafe.Sizeof(*r)) + int64(cap(r.Groups))*int64(unsafe.Sizeof(Group{}))
	for i := range r.Groups {
		g := &r.Groups[i]
		n += 8 * int64(cap(g.IDs)+cap(g.CreatorIDs))
		for k, v := range g.Labels {
			n += 48 + int64(len(k)+len(v))
		}
		if g.Change != nil {
			n += int64(unsafe.Sizeof(Change{}))
		}
	}
	return n
}
