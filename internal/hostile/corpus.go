package hostile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Heap is the sample types of a Go heap profile.
var Heap = [][2]string{{"alloc_objects", "count"}, {"alloc_space", "bytes"}, {"inuse_objects", "count"}, {"inuse_space", "bytes"}}

// Inuse is a profile of one sample type, inuse_space in bytes.
var Inuse = [][2]string{{"inuse_space", "bytes"}}

// SmallProfile is a valid one-sample heap profile: 2 objects, 2048 bytes, held by
// main.alloc called from main.main.
func SmallProfile() []byte {
	return Profile{SampleTypes: Heap, Samples: []Sample{{Stack: []string{"main.alloc", "main.main"}, Values: []int64{2, 2048, 2, 2048}}}}.Encode()
}

// NegativeValues is a valid profile (pprof writes such for -diff_base) whose
// samples are -4096 and +1024 bytes; pprof's total is the sum of absolute values,
// 5120 bytes.
func NegativeValues() []byte {
	return Profile{SampleTypes: Inuse, Samples: []Sample{
		{Stack: []string{"main.shrink", "main.main"}, Values: []int64{-4096}},
		{Stack: []string{"main.grow", "main.main"}, Values: []int64{1024}},
	}}.Encode()
}

// HugeValues is a profile whose two samples are each math.MaxInt64 bytes: their sum
// does not fit in an int64.
func HugeValues() []byte {
	return Profile{SampleTypes: Inuse, Samples: []Sample{
		{Stack: []string{"main.huge", "main.main"}, Values: []int64{math.MaxInt64}},
		{Stack: []string{"main.huger", "main.main"}, Values: []int64{math.MaxInt64}},
		{Stack: []string{"main.least", "main.main"}, Values: []int64{math.MinInt64}},
	}}.Encode()
}

// HostileNamesProfile holds one sample per hostile name (values 1, 2, 3, 4 bytes,
// in the order of HostileNames) and one whose stack has all of them.
func HostileNamesProfile() []byte {
	p := Profile{SampleTypes: Inuse}
	for i, name := range HostileNames {
		p.Samples = append(p.Samples, Sample{Stack: []string{name, "main.main"}, Values: []int64{int64(i + 1)}})
	}
	p.Samples = append(p.Samples, Sample{Stack: append(append([]string{}, HostileNames...), "main.main"), Values: []int64{100}})
	return p.Encode()
}

// LongName is a 100 KB function name.
var LongName = "main." + strings.Repeat("VeryLongName", 100_000/12)

// LongNameProfile holds one sample of 512 bytes in LongName.
func LongNameProfile() []byte {
	return Profile{SampleTypes: Inuse, Samples: []Sample{{Stack: []string{LongName, "main.main"}, Values: []int64{512}}}}.Encode()
}

// InvalidUTF8Name is a function name that is not UTF-8.
const InvalidUTF8Name = "main.bad\xff\xfe\xc3(name)"

// InvalidUTF8Profile holds one sample of 64 bytes in InvalidUTF8Name.
func InvalidUTF8Profile() []byte {
	return Profile{SampleTypes: Inuse, Samples: []Sample{{Stack: []string{InvalidUTF8Name, "main.main"}, Values: []int64{64}}}}.Encode()
}

// goroutine prints one goroutine of a debug=2 dump.
func goroutine(id int, state string, frames ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "goroutine %d [%s]:\n", id, state)
	for i, f := range frames {
		fmt.Fprintf(&b, "%s(0x%x)\n\t/src/hostile/main.go:%d +0x%x\n", f, i+1, 10+i, 16*(i+1))
	}
	b.WriteString("created by main.main in goroutine 1\n\t/src/hostile/main.go:5 +0x2\n\n")
	return b.String()
}

// HostileNamesDump is a goroutine dump of 4 goroutines, each parked in one of the
// HostileNames.
func HostileNamesDump() []byte {
	var b strings.Builder
	for i, name := range HostileNames {
		b.WriteString(goroutine(i+1, "chan receive", name, "main.main"))
	}
	return []byte(b.String())
}

// CutDump is a goroutine dump of 3 goroutines cut in the middle of a frame
// line of the third, as a size-limited log or a killed process leaves it.
func CutDump() []byte {
	s := goroutine(1, "running", "main.main") + goroutine(2, "select", "main.worker", "main.main") +
		goroutine(3, "chan receive", "main.consumer", "main.main")
	cut := strings.LastIndex(s, "main.consumer") + len("main.cons")
	return []byte(s[:cut])
}

// Small returns the small corpus, file name → content, exactly as committed under
// testdata/hostile/.
func Small() map[string][]byte {
	proto := func(b []byte) []byte { return Gzip(b) }
	random := make([]byte, 4096)
	r := rand.NewChaCha8([32]byte{'l', 'e', 'a', 'k', 'u', 'i'})
	r.Read(random)
	random[0] = 0xff // not a profile.proto field key
	heapGz := Gzip(SmallProfile())
	nested := SmallProfile()
	for range 8 {
		nested = Gzip(nested)
	}
	return map[string][]byte{
		"empty":                  {},
		"one-byte.bin":           {0x1f},
		"random.bin":             random,
		"truncated.pb.gz":        heapGz[:len(heapGz)/2],
		"gzip-8-deep.pb.gz":      nested,
		"oob-string.pb":          outOfRangeString(),
		"oob-location.pb":        outOfRangeLocation(),
		"oob-function.pb":        outOfRangeFunction(),
		"no-sample-types.pb":     noSampleTypes(),
		"negative-values.pb.gz":  proto(NegativeValues()),
		"huge-values.pb.gz":      proto(HugeValues()),
		"hostile-names.pb.gz":    proto(HostileNamesProfile()),
		"long-name.pb.gz":        proto(LongNameProfile()),
		"invalid-utf8.pb.gz":     proto(InvalidUTF8Profile()),
		"hostile-goroutines.txt": HostileNamesDump(),
		"cut-mid-frame.txt":      CutDump(),
		"invalid-utf8-goroutines.txt": []byte(goroutine(1, "chan receive", InvalidUTF8Name, "main.main") +
			goroutine(2, "select \xff", "main.worker\xfe", "main.main")),
		"invalid-utf8.log":         []byte("2024-01-01 00:00:00 INFO ok\n2024-01-01 00:00:01 WARN bad \xff\xfe bytes\n2024-01-01 00:00:02 INFO \xc3\n"),
		"mixed-years.log":          []byte("2024-01-10 00:00:00 INFO dated\nJan 10 00:00:00 INFO yearless\n2024-01-10 00:00:01 INFO dated\nno time INFO\n"),
		"legacy-text-garbage.heap": []byte("heap profile: 1: 2 [3: 4] @ heap/1048576\n1: 2 [3: 4] @ 0xzz not hex\n\x00\x01garbage\n"),
		"page.html":                []byte("<!DOCTYPE html>\n<html><head><title>x</title></head><body><script>alert(1)</script></body></html>\n"),
		"doc.json":                 []byte(`{"goroutines": 12, "heap": "1 GiB", "note": "<script>alert(1)</script>"}` + "\n"),
	}
}

// outOfRangeString is a profile whose function name refers to string 999 of 6.
func outOfRangeString() []byte {
	var b []byte
	b = appendMsg(b, fieldSampleType, append(appendVarint(nil, 1, 1), appendVarint(nil, 2, 2)...))
	b = appendMsg(b, fieldSample, sampleMsg([]uint64{1}, []int64{10}))
	b = appendMsg(b, fieldLocation, locationMsg(1, 1))
	b = appendMsg(b, fieldFunction, functionMsg(1, 999, 3))
	return appendStrings(b, "", "inuse_space", "bytes", "a.go")
}

// outOfRangeLocation is a profile whose sample refers to location 999, which does
// not exist.
func outOfRangeLocation() []byte {
	var b []byte
	b = appendMsg(b, fieldSampleType, append(appendVarint(nil, 1, 1), appendVarint(nil, 2, 2)...))
	b = appendMsg(b, fieldSample, sampleMsg([]uint64{1, 999}, []int64{10}))
	b = appendMsg(b, fieldLocation, locationMsg(1, 1))
	b = appendMsg(b, fieldFunction, functionMsg(1, 3, 4))
	return appendStrings(b, "", "inuse_space", "bytes", "main.f", "a.go")
}

// outOfRangeFunction is a profile whose location's line refers to function 999,
// which does not exist.
func outOfRangeFunction() []byte {
	var b []byte
	b = appendMsg(b, fieldSampleType, append(appendVarint(nil, 1, 1), appendVarint(nil, 2, 2)...))
	b = appendMsg(b, fieldSample, sampleMsg([]uint64{1}, []int64{10}))
	b = appendMsg(b, fieldLocation, locationMsg(1, 999))
	b = appendMsg(b, fieldFunction, functionMsg(1, 3, 4))
	return appendStrings(b, "", "inuse_space", "bytes", "main.f", "a.go")
}

// noSampleTypes is a profile.proto with functions and strings but no sample type.
func noSampleTypes() []byte {
	var b []byte
	b = appendMsg(b, fieldLocation, locationMsg(1, 1))
	b = appendMsg(b, fieldFunction, functionMsg(1, 1, 2))
	return appendStrings(b, "", "main.f", "a.go")
}

func appendStrings(b []byte, s ...string) []byte {
	for _, x := range s {
		b = appendMsg(b, fieldStringTable, []byte(x))
	}
	return b
}
