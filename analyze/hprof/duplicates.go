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
	// Each String's hash (0: no hashed value array), and two bitmaps over the
	// hashes' low bits, of the values seen once and seen again: only the
	// Strings whose bits were seen again can have a twin, and only they are
	// sorted.
	hashOf, err := makeArray[uint64](rs, len(h.strings), scratch, "the duplicate strings")
	if err != nil {
		return nil, err
	}
	defer func() { free(rs, hashOf) }()
	bits := 64
	for bits < 8*len(h.strings) {
		bits <<= 1
	}
	once, err := makeArray[uint64](rs, bits/64, scratch, "the duplicate strings")
	if err != nil {
		return nil, err
	}
	defer func() { free(rs, once) }()
	twice, err := makeArray[uint64](rs, bits/64, scratch, "the duplicate strings")
	if err != nil {
		return nil, err
	}
	defer func() { free(rs, twice) }()
	mask := uint64(bits - 1)
	qs := scan(rs, h.strings)
	candidates := 0
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
		hash := h.hashes.hash[j] | 1 // never 0
		hashOf[i] = hash
		b := hash & mask
		if once[b/64]&(1<<(b%64)) != 0 {
			twice[b/64] |= 1 << (b % 64)
		}
		once[b/64] |= 1 << (b % 64)
	}
	qs.end()
	for i, hash := range hashOf {
		if b := hash & mask; hash != 0 && twice[b/64]&(1<<(b%64)) != 0 {
			candidates++
		}
		if i&cancelCheckMask == 0 {
			if err := h.stopped(); err != nil {
				return nil, err
			}
		}
	}
	all, err := makeArray[dupKey](rs, candidates, scratch, "the duplicate strings")
	if err != nil {
		return nil, err
	}
	defer func() { free(rs, all) }()
	k := 0
	for i, hash := range hashOf {
		if b := hash & mask; hash == 0 || twice[b/64]&(1<<(b%64)) == 0 {
			continue
		}
		s := h.strings[i]
		all[k] = dupKey{hash: hash, size: sat32(h.ShallowSize(s.value)), value: s.value, str: s.str, coder: s.coder}
		k++
	}
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
