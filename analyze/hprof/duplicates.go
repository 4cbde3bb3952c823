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

// dupKey is a String with its value array's content hash and size, sorted to
// group equal values.
type dupKey struct {
	hash       uint64
	size       uint32
	value, str uint32
	coder      uint8
}

// maxDuplicates is how many groups of duplicate strings a heap keeps.
const maxDuplicates = 100

// duplicateStrings groups the java.lang.String objects by the content of their value
// arrays (hashed in the first pass) and keeps the top groups by wasted bytes.
func (h *Heap) duplicateStrings() ([]dupGroup, error) {
	rs := &h.rs
	for _, err := range []error{hold(rs, h.hashes.ord), hold(rs, h.hashes.hash), hold(rs, h.size)} {
		if err != nil {
			return nil, err
		}
	}
	defer func() {
		release(rs, h.hashes.ord)
		release(rs, h.hashes.hash)
		release(rs, h.size)
	}()
	all, err := makeArray[dupKey](rs, len(h.strings), scratch, "the duplicate strings")
	if err != nil {
		return nil, err
	}
	defer func() { free(rs, all) }()
	k := 0
	qs := scan(rs, h.strings)
	for i, s := range h.strings {
		if i&cancelCheckMask == 0 {
			qs.at(i)
			if err := h.report(stageStrings, 0.5*float64(i)/float64(len(h.strings)), 0); err != nil {
				return nil, err
			}
		}
		j, ok := slicesSearch(len(h.hashes.ord), func(j int) bool { return h.hashes.ord[j] >= s.value })
		if !ok || h.hashes.ord[j] != s.value {
			continue
		}
		all[k] = dupKey{hash: h.hashes.hash[j], size: sat32(h.ShallowSize(s.value)), value: s.value, str: s.str, coder: s.coder}
		k++
	}
	qs.end()
	all = all[:k]
	if err := sortStoppable(h, all, func(a, b dupKey) int {
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
		return cmpUint32(a.value, b.value)
	}); err != nil {
		return nil, err
	}
	var groups []dupGroup
	for i := 0; i < len(all); {
		j := i + 1
		distinct := 1 // the values are sorted within a group: count the changes
		for j < len(all) && all[j].hash == all[i].hash && all[j].size == all[i].size {
			if all[j].value != all[j-1].value {
				distinct++
			}
			j++
		}
		if j-i > 1 {
			// Strings sharing one array waste only the String objects.
			var wasted int64
			wasted += int64(j-i-1) * h.ShallowSize(all[i].str)
			wasted += int64(distinct-1) * h.ShallowSize(all[i].value)
			if len(groups) == cap(groups) {
				h.mem.chargeSmall(int64(unsafe.Sizeof(dupGroup{}))*int64(max(cap(groups), 16)), "the duplicate strings")
			}
			groups = append(groups, dupGroup{value: all[i].value, coder: all[i].coder, count: int64(j - i), wasted: wasted})
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
