package hprof

import (
	"slices"
	"unsafe"
)

// dupGroup is a group of Strings with equal values before their text is read.
type dupGroup struct {
	value  uint32 // one value array
	coder  uint8
	count  int64
	wasted int64
}

// maxDuplicates is how many groups of duplicate strings a heap keeps.
const maxDuplicates = 100

// duplicateStrings groups the java.lang.String objects by the content of their value
// arrays (hashed in the first pass) and keeps the top groups by wasted bytes.
func (h *Heap) duplicateStrings() ([]dupGroup, error) {
	type keyed struct {
		hash uint64
		size int64
		s    stringRef
	}
	// The strings with their hashes, and at most one group for two of them.
	scratch := int64(len(h.strings)) * int64(unsafe.Sizeof(keyed{})+unsafe.Sizeof(dupGroup{})/2)
	if err := h.mem.charge(scratch, "the duplicate strings"); err != nil {
		return nil, err
	}
	defer h.mem.uncharge(scratch)
	all := make([]keyed, 0, len(h.strings))
	for _, s := range h.strings {
		i, ok := slicesSearch(len(h.hashes.ord), func(i int) bool { return h.hashes.ord[i] >= s.value })
		if !ok || h.hashes.ord[i] != s.value {
			continue
		}
		all = append(all, keyed{hash: h.hashes.hash[i], size: h.ShallowSize(s.value), s: s})
	}
	slices.SortFunc(all, func(a, b keyed) int {
		switch {
		case a.hash < b.hash:
			return -1
		case a.hash > b.hash:
			return 1
		case a.size < b.size:
			return -1
		case a.size > b.size:
			return 1
		}
		return cmpUint32(a.s.value, b.s.value)
	})
	var groups []dupGroup
	for i := 0; i < len(all); {
		j := i + 1
		distinct := map[uint32]bool{all[i].s.value: true}
		for j < len(all) && all[j].hash == all[i].hash && all[j].size == all[i].size {
			distinct[all[j].s.value] = true
			j++
		}
		if j-i > 1 {
			// Strings sharing one array waste only the String objects.
			var wasted int64
			wasted += int64(j-i-1) * h.ShallowSize(all[i].s.str)
			wasted += int64(len(distinct)-1) * all[i].size
			groups = append(groups, dupGroup{value: all[i].s.value, coder: all[i].s.coder, count: int64(j - i), wasted: wasted})
		}
		i = j
	}
	// Equal groups in the order of their arrays, not of the hashes (whose seed
	// differs from one parse to the next), so that a dump gives one report.
	slices.SortFunc(groups, func(a, b dupGroup) int {
		if c := cmpDesc(a.wasted, b.wasted, a.count, b.count); c != 0 {
			return c
		}
		return cmpUint32(a.value, b.value)
	})
	return slices.Clone(groups[:min(len(groups), maxDuplicates)]), nil
}

// wantDuplicates asks for the texts of the top duplicate strings.
func (h *Heap) wantDuplicates(top int, res *resolver) []dupGroup {
	groups := h.dups[:min(len(h.dups), top)]
	for _, g := range groups {
		res.texts[g.value] = g.coder
	}
	return groups
}

func finishDuplicates(groups []dupGroup, res *resolver) []DuplicateString {
	out := []DuplicateString{}
	for _, g := range groups {
		out = append(out, DuplicateString{Text: res.text[g.value], Count: g.count, Wasted: g.wasted})
	}
	return out
}
